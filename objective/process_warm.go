package objective

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/servetune/servetune/engines/launch"
)

// warmPool holds the engines WithReuse keeps running between trials.
// Trials run side by side, each on its own devices, so the pool keeps at
// most one engine per device set: a trial reuses only the engine that
// runs on exactly its devices with exactly its command, and every other
// warm engine on a device it needs is stopped before it launches. An
// engine left warm on devices no later trial needs keeps them until
// Close; the packer hands them out as free, which is safe because the
// trial that gets them stops that engine first.
type warmPool struct {
	mu  sync.Mutex
	all []warmEngine
}

// warmEngine is one engine kept for reuse, with what pickWarm decides on.
type warmEngine struct {
	warmState
	srv *launch.Server
}

// warmState is what decides a warm engine's fate.
type warmState struct {
	devices []string // its CUDA_VISIBLE_DEVICES; nil: every GPU
	key     string   // its rendered command, model name and prefix
	live    bool     // its process still runs
}

// pickWarm decides, for a trial on devices whose command is key, which
// warm engine it reuses (-1: none) and which must be stopped before it
// runs: any other one on a device it needs, and a dead one in its place.
func pickWarm(warm []warmState, devices []string, key string) (reuse int, stop []int) {
	reuse = -1
	for i, w := range warm {
		switch {
		case !overlaps(w.devices, devices):
		case w.live && w.key == key && slices.Equal(w.devices, devices):
			reuse = i
		default:
			stop = append(stop, i)
		}
	}
	return reuse, stop
}

// overlaps says whether two device sets share a GPU; no devices means
// every GPU.
func overlaps(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	return slices.ContainsFunc(a, func(d string) bool { return slices.Contains(b, d) })
}

// claim removes from the pool the engine a trial on devices with command
// key reuses (nil: launch one) and the engines it must stop first.
func (p *warmPool) claim(devices []string, key string) (*launch.Server, []*launch.Server) {
	p.mu.Lock()
	defer p.mu.Unlock()
	states := make([]warmState, len(p.all))
	for i, w := range p.all {
		states[i] = w.warmState
		states[i].live = running(w.srv)
	}
	reuse, stop := pickWarm(states, devices, key)
	var srv *launch.Server
	var stale []*launch.Server
	kept := p.all[:0:0]
	for i, w := range p.all {
		switch {
		case i == reuse:
			srv = w.srv
		case slices.Contains(stop, i):
			stale = append(stale, w.srv)
		default:
			kept = append(kept, w)
		}
	}
	p.all = kept
	return srv, stale
}

// put keeps srv warm for a trial's devices. It returns the engines that
// must stop instead: any overlapping it (only when trials without devices
// ran side by side, which share every GPU anyway).
func (p *warmPool) put(devices []string, key string, srv *launch.Server) []*launch.Server {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*launch.Server
	kept := p.all[:0:0]
	for _, w := range p.all {
		if overlaps(w.devices, devices) {
			out = append(out, w.srv)
			continue
		}
		kept = append(kept, w)
	}
	p.all = append(kept, warmEngine{warmState{devices: slices.Clone(devices), key: key}, srv})
	return out
}

// drain empties the pool.
func (p *warmPool) drain() []*launch.Server {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*launch.Server, 0, len(p.all))
	for _, w := range p.all {
		out = append(out, w.srv)
	}
	p.all = nil
	return out
}

// stopAll tears the servers down side by side: each waits for its own
// GPUs to be released.
func stopAll(ctx context.Context, srvs []*launch.Server) error {
	errs := make([]error, len(srvs))
	var wg sync.WaitGroup
	for i, s := range srvs {
		wg.Go(func() { errs[i] = s.Stop(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func running(s *launch.Server) bool {
	select {
	case <-s.Done():
		return false
	default:
		return true
	}
}
