package search

import (
	"context"
	"fmt"

	"github.com/servetune/servetune/space"
)

// gridFloatPoints is how many points a continuous float range contributes
// to a grid.
const gridFloatPoints = 5

// Grid enumerates every config of the space: the product of the knobs'
// finite domains (continuous floats at gridFloatPoints evenly spaced
// values), following `when` conditions so inactive knobs are not
// multiplied in. Configs are in declaration order of the knobs.
func Grid(sp *space.Space) []space.Config {
	order, err := sp.Order()
	if err != nil {
		return nil
	}
	out := []space.Config{{}}
	for _, p := range order {
		vals, ok := p.Grid()
		if !ok {
			vals = make([]any, gridFloatPoints)
			for i := range vals {
				vals[i] = p.Low + (p.High-p.Low)*float64(i)/float64(gridFloatPoints-1)
			}
		}
		next := make([]space.Config, 0, len(out)*len(vals))
		for _, c := range out {
			if !sp.Active(p, c) {
				next = append(next, c)
				continue
			}
			for _, v := range vals {
				d := c.Clone()
				d[p.Name] = v
				next = append(next, d)
			}
		}
		out = next
	}
	return out
}

// gridSampler measures every config of the space in a seeded random
// order. It ignores the feasibility model: a grid is asked for to measure
// everything.
type gridSampler struct {
	sp *space.Space
	// queue is the configs not told yet, in the order to propose them.
	queue []space.Config
	told  map[string]bool
}

func newGrid(b build) (Sampler, error) {
	g := &gridSampler{sp: b.sp, queue: Grid(b.sp), told: map[string]bool{}}
	b.rng.Shuffle(len(g.queue), func(i, j int) { g.queue[i], g.queue[j] = g.queue[j], g.queue[i] })
	return g, nil
}

// Ask returns the first n configs of the queue that are neither told nor
// pending. A config leaves the queue only when it is told: one asked for
// and then abandoned (no longer pending, never told) is proposed again.
func (g *gridSampler) Ask(_ context.Context, n int, pending []space.Config) ([]space.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("ask for %d configs: at least 1", n)
	}
	busy := KeySet(g.sp, pending)
	var out, kept []space.Config
	i := 0
	for ; i < len(g.queue) && len(out) < n; i++ {
		c := g.queue[i]
		k := ConfigKey(g.sp, c)
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
		return nil, ErrPending
	}
	return nil, ErrExhausted
}

// Tell records a finished trial.
func (g *gridSampler) Tell(_ context.Context, o Observation) error {
	g.told[ConfigKey(g.sp, o.Config)] = true
	return nil
}
