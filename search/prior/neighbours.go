package prior

import (
	"context"
	"math/rand"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// screenAround screens every config one knob away from c (finite knobs
// only), once per config: around the measured incumbent the prior climbs
// from where reality is best, around its own pick from where it believes
// the best is.
func (t *table) screenAround(ctx context.Context, c space.Config) {
	if c == nil {
		return
	}
	k := search.ConfigKey(t.sp, c)
	if t.around[k] {
		return
	}
	t.around[k] = true
	t.screenAll(ctx, t.neighbours(c))
}

// neighbours are the rule-satisfying configs one knob away from c, any
// knob they activate drawn from the prior's stream.
func (t *table) neighbours(c space.Config) []space.Config { return neighbours(t.sp, c, t.rng) }

// neighbours are the rule-satisfying configs of sp one knob away from c,
// any knob they activate drawn from rng.
func neighbours(sp *space.Space, c space.Config, rng *rand.Rand) []space.Config {
	var out []space.Config
	for _, p := range sp.Params {
		vals, ok := p.Grid()
		if !ok {
			continue
		}
		for _, v := range vals {
			n := c.Clone()
			n[p.Name] = v
			n = sp.WithTargetEngine(repair(sp, n, rng))
			if sp.Check(n) == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// climb screens around each of the climbStarts best screened configs of
// each objective, moving to the best neighbour until it stays (at most
// climbSteps times), so the prior knows its own optima before the first
// proposal; several starts, because the landscapes have ridges that one
// knob at a time cannot cross. keep: the starts the memory plan leaves open.
func (t *table) climb(ctx context.Context, keep func(*candidate) bool) {
	for obj := range t.sp.Objectives {
		for _, start := range t.topScreened(obj, climbStarts, keep) {
			c := start
			for range climbSteps {
				t.screenAround(ctx, c.cfg)
				next := t.bestNeighbour(c, obj)
				if next == c {
					break
				}
				c = next
			}
		}
	}
}

// bestNeighbour is the screened one-knob neighbour of cd with the best
// corrected screening value on obj, or cd when none beats it.
func (t *table) bestNeighbour(cd *candidate, obj int) *candidate {
	best := cd
	bestScore, _ := t.score(cd, cd.fast, cd.fastOK, obj)
	for _, n := range t.neighbours(cd.cfg) {
		nc := t.cands[search.ConfigKey(t.sp, n)]
		if nc == nil {
			continue
		}
		if s, ok := t.score(nc, nc.fast, nc.fastOK, obj); ok && s > bestScore {
			best, bestScore = nc, s
		}
	}
	return best
}

// repair makes a config changed by one knob consistent with the space's
// conditions: knobs whose condition no longer holds are dropped, knobs
// that became active get a random value drawn from rng.
func repair(sp *space.Space, c space.Config, rng *rand.Rand) space.Config {
	order, err := sp.Order()
	if err != nil {
		order = sp.Params
	}
	return search.SettleActive(sp, order, c, func(p space.Param) any { return p.Random(rng) })
}

// refineNear fully predicts c's one-knob neighbours whose screening comes
// within nearTie of c's on some objective: screening cannot tell them
// apart (a shortened benchmark hides what a larger batch gains), the
// full prediction can.
func (t *table) refineNear(ctx context.Context, c space.Config) {
	t.screenAround(ctx, c)
	self := t.cands[search.ConfigKey(t.sp, c)]
	var todo []*candidate
	for _, n := range t.neighbours(c) {
		cd := t.cands[search.ConfigKey(t.sp, n)]
		if cd != nil && !cd.refined && t.nearOrBetter(cd, self) && !containsCand(todo, cd) {
			todo = append(todo, cd)
		}
	}
	t.refineAll(ctx, todo)
}

func (t *table) nearOrBetter(cd, than *candidate) bool {
	for obj := range t.sp.Objectives {
		a, ok := t.score(cd, cd.fast, cd.fastOK, obj)
		b, okB := t.score(than, than.fast, than.fastOK, obj)
		if ok && (!okB || a >= b-nearTie) {
			return true
		}
	}
	return false
}
