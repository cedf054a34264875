package grid

import (
	"context"
	"fmt"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// gridSampler measures every config of the space in a seeded random
// order. It ignores the feasibility model: a grid is asked for to measure
// everything.
type gridSampler struct {
	sp *space.Space
	// queue is the configs not told yet, in the order to propose them.
	queue []space.Config
	told  map[string]bool
}

// New measures every config of the space in a seeded random
// order.
func New(b search.Build) (search.Sampler, error) {
	g := &gridSampler{sp: b.Space, queue: search.Grid(b.Space), told: map[string]bool{}}
	b.Rand.Shuffle(len(g.queue), func(i, j int) { g.queue[i], g.queue[j] = g.queue[j], g.queue[i] })
	return g, nil
}

// Ask returns the first n configs of the queue that are neither told nor
// pending. A config leaves the queue only when it is told: one asked for
// and then abandoned (no longer pending, never told) is proposed again.
func (g *gridSampler) Ask(_ context.Context, n int, pending []space.Config) ([]space.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("ask for %d configs: at least 1", n)
	}
	busy := search.KeySet(g.sp, pending)
	var out, kept []space.Config
	i := 0
	for ; i < len(g.queue) && len(out) < n; i++ {
		c := g.queue[i]
		k := search.ConfigKey(g.sp, c)
		if g.told[k] {
			continue // measured: it leaves the queue
		}
		kept = append(kept, c)
		if !busy[k] {
			busy[k] = true
			out = append(out, c)
		}
	}
	g.queue = append(kept, g.queue[i:]...)
	switch {
	case len(out) > 0:
		return out, nil
	case len(g.queue) > 0:
		return nil, search.ErrPending
	}
	return nil, search.ErrExhausted
}

// Tell records a finished trial.
func (g *gridSampler) Tell(_ context.Context, o search.Observation) error {
	g.told[search.ConfigKey(g.sp, o.Config)] = true
	return nil
}
