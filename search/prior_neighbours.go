package search

import (
	"context"

	"github.com/servetune/servetune/space"
)

// screenAround screens every config one knob away from c (finite knobs
// only), once per config: around the measured incumbent the prior climbs
// from where reality is best, around its own pick from where it believes
// the best is.
func (ps *priorSampler) screenAround(ctx context.Context, c space.Config) {
	if c == nil {
		return
	}
	k := ConfigKey(ps.sp, c)
	if ps.around[k] {
		return
	}
	ps.around[k] = true
	ps.screenAll(ctx, ps.neighbours(c))
}

// neighbours are the rule-satisfying configs one knob away from c.
func (ps *priorSampler) neighbours(c space.Config) []space.Config {
	var out []space.Config
	for _, p := range ps.sp.Params {
		vals, ok := p.Grid()
		if !ok {
			continue
		}
		for _, v := range vals {
			n := c.Clone()
			n[p.Name] = v
			n = ps.sp.WithTargetEngine(ps.repair(n))
			if ps.sp.Check(n) == nil {
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
// knob at a time cannot cross.
func (ps *priorSampler) climb(ctx context.Context) {
	for obj := range ps.sp.Objectives {
		for _, start := range ps.topScreened(obj, climbStarts) {
			c := start
			for range climbSteps {
				ps.screenAround(ctx, c.cfg)
				next := ps.bestNeighbour(c, obj)
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
func (ps *priorSampler) bestNeighbour(cd *candidate, obj int) *candidate {
	best := cd
	bestScore, _ := ps.score(cd, cd.fast, cd.fastOK, obj)
	for _, n := range ps.neighbours(cd.cfg) {
		nc := ps.cands[ConfigKey(ps.sp, n)]
		if nc == nil {
			continue
		}
		if s, ok := ps.score(nc, nc.fast, nc.fastOK, obj); ok && s > bestScore {
			best, bestScore = nc, s
		}
	}
	return best
}

// repair makes a config changed by one knob consistent with the space's
// conditions: knobs whose condition no longer holds are dropped, knobs
// that became active get a random value.
func (ps *priorSampler) repair(c space.Config) space.Config {
	order, err := ps.sp.Order()
	if err != nil {
		order = ps.sp.Params
	}
	for _, p := range order {
		_, has := c[p.Name]
		switch active := ps.sp.Active(p, c); {
		case !active && has:
			delete(c, p.Name)
		case active && !has:
			c[p.Name] = p.Random(ps.rng)
		}
	}
	return c
}

// refineNear fully predicts c's one-knob neighbours whose screening comes
// within nearTie of c's on some objective: screening cannot tell them
// apart (a shortened benchmark hides what a larger batch gains), the
// full prediction can.
func (ps *priorSampler) refineNear(ctx context.Context, c space.Config) {
	ps.screenAround(ctx, c)
	self := ps.cands[ConfigKey(ps.sp, c)]
	var todo []*candidate
	for _, n := range ps.neighbours(c) {
		cd := ps.cands[ConfigKey(ps.sp, n)]
		if cd != nil && !cd.refined && ps.nearOrBetter(cd, self) && !containsCand(todo, cd) {
			todo = append(todo, cd)
		}
	}
	ps.refineAll(ctx, todo)
}

func (ps *priorSampler) nearOrBetter(cd, than *candidate) bool {
	for obj := range ps.sp.Objectives {
		a, ok := ps.score(cd, cd.fast, cd.fastOK, obj)
		b, okB := ps.score(than, than.fast, than.fastOK, obj)
		if ok && (!okB || a >= b-nearTie) {
			return true
		}
	}
	return false
}

// climbFull moves each objective's best fully predicted config to its
// best one-knob neighbour until it stays (at most climbSteps times).
func (ps *priorSampler) climbFull(ctx context.Context) {
	for obj := range ps.sp.Objectives {
		for range climbSteps {
			c, ok := ps.pickBest(nil, obj)
			if !ok {
				break
			}
			ps.refineNear(ctx, c)
			if n, _ := ps.pickBest(nil, obj); ConfigKey(ps.sp, n) == ConfigKey(ps.sp, c) {
				break
			}
		}
	}
}
