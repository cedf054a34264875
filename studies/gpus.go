package studies

import (
	"fmt"
	"slices"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// gpuNeed is how many GPUs a config's trial occupies: the target's
// gpus_per_trial hook when set, else the engine's own count.
func (l *loop) gpuNeed(c space.Config) int {
	if l.GPUNeed != nil {
		return l.GPUNeed(c)
	}
	return max(engines.GPUs(c, l.Space.Target), 1)
}

// held keeps a pick that did not fit the free GPUs, so the sampler's
// proposal is started when a trial frees enough, not lost.
func (p *pool) held(n next) bool {
	need := p.headNeed(n.cfg)
	if !p.devices.Fits(need) {
		p.stopErr = fmt.Errorf("config %s needs %d GPUs and this worker has %d (%s): give it more GPUs or narrow the space", n.cfg.Key(), need, len(p.devices.All()), strings.Join(p.devices.All(), ","))
		return true
	}
	devs, ok := p.devices.Take(need)
	if !ok {
		p.waiting = &n
		return true
	}
	p.waiting, p.taken = nil, slices.Clone(devs)
	return false
}

// headNeed is what a trial takes of this worker's GPUs. A trial spread
// over the target's nodes (more GPUs than one node has) takes the whole
// head node, where this worker runs: the other nodes serve only such
// trials, so holding the head keeps them to one at a time.
func (l *loop) headNeed(c space.Config) int {
	need := l.gpuNeed(c)
	t := l.Space.Target
	if len(t.Nodes) > 1 && need > t.NodeGPUs() && engines.Nodes(c, t) <= len(t.Nodes) {
		return len(l.Devices)
	}
	return need
}
