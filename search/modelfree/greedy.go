package modelfree

import (
	"context"
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Greedy is coordinate search as the seeds tune by hand, offered to users
// and used as the baseline the other samplers must beat.
//
// It first measures each engine at its defaults: every active knob at
// "default" when that is in its domain, else the domain's first value (a
// space without an engine knob measures that one default config). The
// best becomes the incumbent. Then each remaining knob, in declared order
// (Space.Params), is swept over its domain (Param.Grid; continuous floats
// at 5 evenly spaced points) with every other knob fixed at the
// incumbent, and the best value is kept before moving on. A knob inactive
// under the incumbent is skipped; knobs that a new value activates start
// at their defaults. Configs that break a rule are skipped without being
// proposed, as are values whose trial failed or was infeasible: ranking is
// feasibility-first (Dominates on the first objective and the SLO
// violation). Like the seeds, it stops at a coordinate-wise optimum, which
// may be a local one.
//
// A knob is decided from what was told once all its values are proposed
// and none is still being measured; a proposal never told (abandoned)
// does not hold the sweep up. Observations of configs it did not propose (a resumed study's
// history) are remembered, so the sweep replays without re-measuring them.
type Greedy struct {
	sp    *space.Space
	order []space.Param
	// results holds every told observation by search.ConfigKey: told configs
	// carry the target's engine, proposals may not.
	results map[string]search.Observation
	// best is the incumbent; bestKey is "" before the engine phase ends.
	best    space.Config
	bestKey string
	// next indexes sp.Params for the knob to sweep after the current one;
	// -1 while the engine phase runs.
	next int
	// queue is the current knob's configs not yet proposed; batch is all of
	// them (including those known from history).
	queue, batch []space.Config
	started      bool
	done         bool
}

// NewGreedy returns a coordinate search over the space.
func NewGreedy(sp *space.Space) *Greedy {
	order, err := sp.Order()
	if err != nil {
		order = sp.Params
	}
	return &Greedy{sp: sp, order: order, results: map[string]search.Observation{}, next: -1}
}

// Tell records a finished trial.
func (g *Greedy) Tell(o search.Observation) {
	g.results[search.ConfigKey(g.sp, o.Config)] = o
}

// Propose returns the next config to measure. busy reports the configs
// being measured: they are not proposed again, and a knob is decided only
// once none of its configs is busy (until then ErrPending). ErrExhausted
// ends the sweep.
func (g *Greedy) Propose(busy func(space.Config) bool) (space.Config, error) {
	if !g.started {
		g.started = true
		g.batch = g.engineBatch()
		g.queue = append([]space.Config(nil), g.batch...)
	}
	for !g.done {
		for len(g.queue) > 0 {
			c := g.queue[0]
			g.queue = g.queue[1:]
			if _, known := g.results[search.ConfigKey(g.sp, c)]; !known && !busy(c) {
				return c, nil
			}
		}
		if g.waiting(busy) {
			return nil, search.ErrPending
		}
		g.decide()
		g.advance()
	}
	return nil, search.ErrExhausted
}

// waiting reports whether a config of the current knob is still busy.
func (g *Greedy) waiting(busy func(space.Config) bool) bool {
	for _, c := range g.batch {
		if _, known := g.results[search.ConfigKey(g.sp, c)]; !known && busy(c) {
			return true
		}
	}
	return false
}

// Best is the incumbent config and its observation; ok is false until
// some trial of the sweep completed feasibly or otherwise.
func (g *Greedy) Best() (space.Config, search.Observation, bool) {
	if g.bestKey == "" {
		return nil, search.Observation{}, false
	}
	o, ok := g.results[g.bestKey]
	return g.best, o, ok
}

// engineBatch is each engine's default config (one config without an
// engine knob).
func (g *Greedy) engineBatch() []space.Config {
	p, ok := g.sp.Param("engine")
	if !ok {
		return g.usable([]space.Config{g.complete(space.Config{})})
	}
	var out []space.Config
	for _, v := range p.Values {
		out = append(out, g.complete(space.Config{"engine": v}))
	}
	return g.usable(out)
}

// complete fills c's missing active knobs with their defaults and drops
// knobs that c's values make inactive, walking the `when` order.
func (g *Greedy) complete(c space.Config) space.Config {
	out := space.Config{}
	for _, p := range g.order {
		if !g.sp.Active(p, out) {
			continue
		}
		if v, ok := c[p.Name]; ok {
			out[p.Name] = v
		} else {
			out[p.Name] = defaultValue(p)
		}
	}
	return out
}

// defaultValue is "default" when the domain offers it, else the first value.
func defaultValue(p space.Param) any {
	if p.Contains(space.Default) {
		return space.Default
	}
	vals := sweepValues(p)
	return vals[0]
}

// sweepValues is the knob's finite domain, continuous floats at
// search.GridFloatPoints evenly spaced values.
func sweepValues(p space.Param) []any {
	if vals, ok := p.Grid(); ok {
		return vals
	}
	vals := make([]any, search.GridFloatPoints)
	for i := range vals {
		vals[i] = p.Low + (p.High-p.Low)*float64(i)/float64(search.GridFloatPoints-1)
	}
	return vals
}

// usable drops configs that break a rule and duplicates.
func (g *Greedy) usable(cs []space.Config) []space.Config {
	var out []space.Config
	seen := map[string]bool{}
	for _, c := range cs {
		if k := c.Key(); !seen[k] && g.sp.Check(c) == nil {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// decide makes the best of the incumbent and the batch the new incumbent.
func (g *Greedy) decide() {
	objs := g.sp.Objectives[:1]
	cur, has := g.results[g.bestKey]
	has = has && greedyEligible(cur)
	for _, c := range g.batch {
		o, ok := g.results[search.ConfigKey(g.sp, c)]
		if !ok || !greedyEligible(o) {
			continue
		}
		if !has || search.Dominates(greedyPoint(o), greedyPoint(cur), objs) {
			g.best, g.bestKey, cur, has = c, search.ConfigKey(g.sp, c), o, true
		}
	}
	if g.bestKey == "" && len(g.batch) > 0 {
		// Nothing ran: sweep on from the first config rather than stop, so
		// a knob that fixes the defaults (a memory setting) is still found.
		g.best, g.bestKey = g.batch[0], search.ConfigKey(g.sp, g.batch[0])
	}
}

func greedyEligible(o search.Observation) bool {
	return o.State == search.Complete && !math.IsNaN(o.Value)
}

func greedyPoint(o search.Observation) search.Point {
	return search.Point{Values: []float64{o.Value}, Violation: o.Violation}
}

// advance moves to the next knob active under the incumbent with at least
// one config to try, or ends the sweep.
func (g *Greedy) advance() {
	g.batch, g.queue = nil, nil
	if g.best == nil {
		g.done = true
		return
	}
	for g.next++; g.next < len(g.sp.Params); g.next++ {
		p := g.sp.Params[g.next]
		if p.Name == "engine" || !g.sp.Active(p, g.best) {
			continue
		}
		var cs []space.Config
		for _, v := range sweepValues(p) {
			c := g.best.Clone()
			c[p.Name] = v
			if c = g.complete(c); search.ConfigKey(g.sp, c) != g.bestKey {
				cs = append(cs, c)
			}
		}
		if cs = g.usable(cs); len(cs) > 0 {
			g.batch = cs
			g.queue = append([]space.Config(nil), cs...)
			return
		}
	}
	g.done = true
}

// greedySampler is Greedy as a Sampler. A batch is the rest of the
// current knob's sweep: the next knob depends on its results.
type greedySampler struct {
	sp *space.Space
	g  *Greedy
	// told holds every observation by search.ConfigKey, to answer the sweep's
	// proposals that a resumed study measured already.
	told map[string]search.Observation
}

// NewGreedySampler is greedy coordinate search (Greedy) as a Sampler.
func NewGreedySampler(b search.Build) (search.Sampler, error) {
	return &greedySampler{sp: b.Space, g: NewGreedy(b.Space), told: map[string]search.Observation{}}, nil
}

// Ask returns up to n configs of the current knob's sweep.
func (s *greedySampler) Ask(_ context.Context, n int, pending []space.Config) ([]space.Config, error) {
	return search.Batch(s.sp, n, pending, func(busy map[string]bool) (space.Config, error) {
		return s.next(func(c space.Config) bool { return busy[search.ConfigKey(s.sp, c)] })
	})
}

// next is the sweep's next proposal not measured yet; one that was (a
// resumed study) is answered from memory.
func (s *greedySampler) next(busy func(space.Config) bool) (space.Config, error) {
	for {
		c, err := s.g.Propose(busy)
		if err != nil {
			return nil, err
		}
		o, seen := s.told[search.ConfigKey(s.sp, c)]
		if !seen {
			return c, nil
		}
		s.g.Tell(o)
	}
}

// Tell records a finished trial.
func (s *greedySampler) Tell(_ context.Context, o search.Observation) error {
	s.told[search.ConfigKey(s.sp, o.Config)] = o
	s.g.Tell(o)
	return nil
}
