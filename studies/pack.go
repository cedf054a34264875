package studies

import (
	"fmt"
	"slices"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// gpus are the devices a worker owns and which of them trials hold. A
// trial starts only on devices that are all free: nothing over-commits.
type gpus struct {
	all  []string
	busy map[string]bool
}

func newGPUs(all []string) *gpus { return &gpus{all: all, busy: map[string]bool{}} }

// take reserves n free devices, lowest first, or none when fewer are
// free. No devices declared means no packing: every trial fits.
func (g *gpus) take(n int) ([]string, bool) {
	if len(g.all) == 0 {
		return nil, true
	}
	var out []string
	for _, d := range g.all {
		if len(out) == n {
			break
		}
		if !g.busy[d] {
			out = append(out, d)
		}
	}
	if len(out) < n {
		return nil, false
	}
	for _, d := range out {
		g.busy[d] = true
	}
	return out, true
}

// release frees a finished trial's devices.
func (g *gpus) release(ds []string) {
	for _, d := range ds {
		delete(g.busy, d)
	}
}

// fits says whether n devices could ever be free at once here.
func (g *gpus) fits(n int) bool { return len(g.all) == 0 || n <= len(g.all) }

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
	if !p.devices.fits(need) {
		p.stopErr = fmt.Errorf("config %s needs %d GPUs and this worker has %d (%s): give it more GPUs or narrow the space", n.cfg.Key(), need, len(p.devices.all), strings.Join(p.devices.all, ","))
		return true
	}
	devs, ok := p.devices.take(need)
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
