package search

import "github.com/servetune/servetune/space"

// screenAround screens every config one knob away from c (finite knobs
// only), once per config: around the measured incumbent the prior climbs
// from where reality is best, around its own pick from where it believes
// the best is.
func (ps *priorSampler) screenAround(c space.Config) {
	if c == nil {
		return
	}
	k := configKey(ps.sp, c)
	if ps.around[k] {
		return
	}
	ps.around[k] = true
	ps.screenAll(ps.neighbours(c))
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

// climb screens around the best screened config of each objective until
// the best stops changing (at most climbSteps times), so the prior knows
// its own optimum before the first proposal, not after many.
func (ps *priorSampler) climb() {
	for obj := range ps.sp.Objectives {
		for range climbSteps {
			top := ps.topScreened(obj, 1)
			if len(top) == 0 || ps.around[configKey(ps.sp, top[0].cfg)] {
				break
			}
			ps.screenAround(top[0].cfg)
		}
	}
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
