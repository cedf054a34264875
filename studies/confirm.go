package studies

import (
	"maps"
	"math"
	"slices"
	"time"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// A study measures the noise instead of assuming it: a budgeted share of
// its trials (RunOptions.Confirm) measures the baseline and the best
// configs again, as decided by search.NextConfirm. Such a trial has origin
// "noise" (the baseline) or "confirm" (a top candidate), is never pruned
// and never reused, counts toward n_trials and the GPU-time budget like
// any other, and passes the store's no-config-twice check on purpose
// (claim.go). Reports rank configs by the mean of their measurements, or a
// disputed config's median (configGroup).

// isRemeasure reports whether a trial's origin measures a config again on
// purpose: an explicit --repeat, a noise repeat or a confirmation.
func isRemeasure(origin string) bool {
	return origin == "repeat" || origin == "noise" || origin == "confirm"
}

// confirmNext is the noise repeat or confirmation to run next, if any.
func (l *loop) confirmNext() (next, bool) {
	budget := search.ConfirmBudget(l.Confirm, l.Space.Study.NTrials)
	if budget == 0 {
		return next{}, false
	}
	c, ok := search.NextConfirm(l.confirmReach(budget))
	if !ok {
		return next{}, false
	}
	if i, ok := l.index().first[c.Key]; ok {
		return next{cfg: l.trials[i].Config, origin: c.Origin}, true
	}
	return next{}, false
}

// confirmState is the study as search.NextConfirm sees it, every
// feasible config ranked.
func (l *loop) confirmState(budget int) search.ConfirmState {
	return l.confirmStateTo(budget, false)
}

// confirmReach is confirmState ranked only as far as NextConfirm can
// reach (search.ConfirmState.Reach), which decides the same: past it no
// config can threaten the leader, and a long study has thousands there,
// each a spared verdict to look up at every pick.
func (l *loop) confirmReach(budget int) search.ConfirmState {
	return l.confirmStateTo(budget, true)
}

// confirmStateTo is confirmState, ranked down to Reach when reach.
func (l *loop) confirmStateTo(budget int, reach bool) search.ConfirmState {
	s := search.ConfirmState{Budget: budget, NTrials: l.Space.Study.NTrials, AssumedCV: DefaultNoiseCV,
		Minimize: l.Space.Objectives[0].Direction == space.Minimize}
	x, running := l.index(), map[string]bool{}
	for _, i := range x.running {
		running[x.keys[i]] = true
	}
	s.Done, s.Used = x.done+len(x.running), x.remeasures
	s.Remaining = min(s.NTrials-s.Done, l.budgetLeft())
	s.CV, s.CVDF = x.noiseCV()
	base := x.baselineOf(l.trials)
	all, ranked := x.groups.groups(l.Space, l.trials, base)
	for k, cs := range x.confirms {
		if g := x.groups.of[k]; g != nil && len(cs) > 0 && l.spared(g.runs[0]) && l.remeasured(k, g.runs[0]) {
			s.SparedUsed++
		}
	}
	measured := func(g *configGroup) search.Measured {
		return search.Measured{Key: g.key, Mean: g.mean[0], N: len(g.runs), Running: running[g.key], Spared: l.spared(g.runs[0]),
			Disputed: g.disputed}
	}
	if base != nil {
		if g := x.groups.of[x.keys[x.baseline()]]; g != nil {
			b := measured(g)
			s.Baseline = &b
		}
	}
	s.Leader = leaderKeyOf(l.Space, l.trials, all, ranked, base, s.CV, s.CVDF, x.groups.lookup, &x.pick)
	n := len(ranked)
	if reach {
		n = s.Reach(n, func(i int) search.Measured {
			g := ranked[i]
			return search.Measured{Key: g.key, Mean: g.mean[0], N: len(g.runs)}
		})
	}
	s.Ranked = make([]search.Measured, 0, n)
	for _, g := range ranked[:n] {
		s.Ranked = append(s.Ranked, measured(g))
	}
	return s
}

// remeasured reports whether a confirmation of config key started after
// trial i (finished or running).
func (l *loop) remeasured(key string, i int) bool {
	cs := l.index().confirms[key]
	return len(cs) > 0 && cs[len(cs)-1] > i
}

// budgetLeft is how many more trials the GPU-time budget pays for at the
// mean cost of the trials so far (unbounded without a budget).
func (l *loop) budgetLeft() int {
	spent, n := l.spent(), l.index().gpuTrials
	if l.Budget <= 0 || n == 0 {
		return math.MaxInt32
	}
	mean := spent / time.Duration(n)
	return max(0, int((l.Budget-spent)/max(mean, 1)))
}

// configGroup is one config's measurements: the complete trials that
// measured it (reuses excluded), oldest first; whether they disagree
// beyond the noise (search.Disputed, on the first objective, against the
// noise of the other configs' repeats); each objective's value over them
// (search.Central: the mean, a disputed config's median from three on);
// and their mean SLO violation.
type configGroup struct {
	key       string
	runs      []int // indices into the trials
	disputed  bool
	mean      []float64
	violation float64
	vals      [][]float64 // per objective, per run (groupIndex's only)
}

type groups []*configGroup

// configGroups groups the complete measurements by config, in the order
// each config was first measured.
func configGroups(sp *space.Space, trials []store.Trial) groups {
	return groupsByKey(sp, trials, func(i int) string { return trials[i].Config.Key() })
}

// groupsByKey is configGroups with each trial's config key from key(i)
// (the loop's index has them: a key is a json.Marshal).
func groupsByKey(sp *space.Space, trials []store.Trial, key func(i int) string) groups {
	var out groups
	at := map[string]*configGroup{}
	vals := map[string][][]float64{} // per config, per objective
	base := Baseline(trials)
	for i, t := range trials {
		if t.State != store.Complete || t.ReusedFrom != 0 {
			continue
		}
		key := key(i)
		g := at[key]
		if g == nil {
			g = &configGroup{key: key, mean: make([]float64, len(sp.Objectives))}
			at[g.key] = g
			vals[g.key] = make([][]float64, len(sp.Objectives))
			out = append(out, g)
		}
		n := float64(len(g.runs))
		for j, v := range Values(sp, t) {
			vals[g.key][j] = append(vals[g.key][j], v)
		}
		g.violation = (g.violation*n + Violation(sp, t, base)) / (n + 1)
		g.runs = append(g.runs, i)
	}
	first := map[string][]float64{}
	for k, vs := range vals {
		first[k] = slices.DeleteFunc(slices.Clone(vs[0]), math.IsNaN)
	}
	disputed := DisputedConfigs(first)
	for _, g := range out {
		g.disputed = disputed[g.key]
		for j := range g.mean {
			g.mean[j] = search.Central(vals[g.key][j], g.disputed)
		}
	}
	return out
}

// DisputedConfigs are the configs whose measurements (byConfig: the
// first objective's, by config) disagree beyond the noise the other
// configs' repeats measure, pooled with DefaultNoiseCV (search.PriorCV):
// an outlier among them would inflate the noise it is judged by. One pass
// over the configs, each left out by subtraction: a study with --repeat
// has every config repeated.
func DisputedConfigs(byConfig map[string][]float64) map[string]bool {
	keys := slices.Sorted(maps.Keys(byConfig))
	ss, df := 0.0, 0
	for _, k := range keys {
		var d int
		ss, d = addSpread(ss, byConfig[k])
		df += d
	}
	out := map[string]bool{}
	for _, k := range keys {
		s, d := addSpread(0, byConfig[k])
		if d == 0 {
			continue
		}
		cv := DefaultNoiseCV
		if df > d {
			cv = math.Sqrt(max(0, ss-s) / float64(df-d))
		}
		if search.Disputed(byConfig[k], search.PriorCV(cv, df-d, DefaultNoiseCV)) {
			out[k] = true
		}
	}
	return out
}

func (gs groups) of(key string) *configGroup {
	for _, g := range gs {
		if g.key == key {
			return g
		}
	}
	return nil
}

// points are the groups as the ranking sees them: one point per config,
// at its mean.
func (gs groups) points() []search.Point {
	pts := make([]search.Point, len(gs))
	for i, g := range gs {
		pts[i] = search.Point{Values: g.mean, Violation: g.violation}
	}
	return pts
}

// winners are the best config (one objective: by search.PickBest, its
// mean pooled with its near-twins' at noise cv) or the Pareto front of the
// configs' means.
//
// feasible is gs.feasible(sp) when at hand (nil: ranked here); memo, when
// not nil, remembers the pick (search.PickMemo).
func (gs groups) winners(sp *space.Space, trials []store.Trial, feasible groups, cv float64, memo *search.PickMemo) []*configGroup {
	if len(sp.Objectives) > 1 {
		front := search.Front
		if memo != nil {
			front = memo.Front
		}
		var out []*configGroup
		for _, w := range front(gs.points(), sp.Objectives) {
			out = append(out, gs[w])
		}
		return out
	}
	if feasible == nil {
		feasible = gs.feasible(sp)
	}
	arm := func(i int) search.Arm {
		g := feasible[i]
		return search.Arm{Config: trials[g.runs[0]].Config, Mean: g.mean[0], N: len(g.runs)}
	}
	// Only the configs near the top can be picked (search.Contenders): a
	// long study has thousands below them.
	arms := make([]search.Arm, search.Contenders(len(feasible), arm))
	keys := make([]string, len(arms))
	for i := range arms {
		arms[i], keys[i] = arm(i), feasible[i].key
	}
	minimize := sp.Objectives[0].Direction == space.Minimize
	var b int
	if memo != nil {
		b = memo.PickBest(keys, arms, cv, minimize)
	} else {
		b = search.PickBest(arms, cv, minimize)
	}
	if b >= 0 {
		return []*configGroup{feasible[b]}
	}
	return nil
}

// feasible are the configs that meet the constraints, best first on the
// first objective: the leader and its rivals, with one objective or
// several (a config off the front can still be truly best on the first).
func (gs groups) feasible(sp *space.Space) []*configGroup {
	var out []*configGroup
	for _, g := range gs {
		if g.violation == 0 && !math.IsNaN(g.mean[0]) {
			out = append(out, g)
		}
	}
	o := sp.Objectives[0]
	slices.SortStableFunc(out, func(a, b *configGroup) int {
		switch {
		case o.Better(a.mean[0], b.mean[0]):
			return -1
		case o.Better(b.mean[0], a.mean[0]):
			return 1
		}
		return 0
	})
	return out
}

// drift is what the study's repeated measurements say about drift: each
// later measurement of a config against its first, on the first
// objective.
func drift(sp *space.Space, trials []store.Trial) search.Drift {
	var ratios []float64
	for _, g := range configGroups(sp, trials) {
		first := Values(sp, trials[g.runs[0]])[0]
		for _, i := range g.runs[1:] {
			if v := Values(sp, trials[i])[0]; first > 0 && v > 0 {
				ratios = append(ratios, math.Log(v/first))
			}
		}
	}
	return search.DetectDrift(ratios)
}

// groupOf finds a config's group by its key (groups.of walks the list;
// the loop's groupIndex.lookup is a map).
type groupOf func(key string) *configGroup

// fill gives a row of a config measured more than once the mean of its
// measurements, their count and the uncertainty of the mean at r's noise.
func (of groupOf) fill(rw *Row, r Report) {
	g := of(rw.Config.Key())
	if g == nil || rw.Origin == "reused" {
		return
	}
	if n := len(g.runs); n > 1 {
		rw.Values = append([]float64(nil), g.mean...)
		rw.Feasible = g.violation == 0
		rw.Measurements = n
		rw.UncertaintyPct = r.uncertaintyPct(n)
	}
}

// valuesOf is t's config's mean values, or t's own when it was measured
// once.
func (of groupOf) valuesOf(sp *space.Space, t store.Trial) []float64 {
	if g := of(t.Config.Key()); g != nil && len(g.runs) > 1 {
		return g.mean
	}
	return Values(sp, t)
}

// meanTrial is t with every metric its config's value over its
// measurements (search.Central, as its objectives; t itself when measured
// once).
func (gs groups) meanTrial(trials []store.Trial, t store.Trial) store.Trial {
	g := gs.of(t.Config.Key())
	if g == nil || len(g.runs) < 2 {
		return t
	}
	vals := map[string]map[string][]float64{}
	for _, i := range g.runs {
		for p, ms := range trials[i].Metrics {
			if vals[p] == nil {
				vals[p] = map[string][]float64{}
			}
			for k, v := range ms {
				vals[p][k] = append(vals[p][k], v)
			}
		}
	}
	out := map[string]map[string]float64{}
	for p, ms := range vals {
		out[p] = map[string]float64{}
		for k, vs := range ms {
			out[p][k] = search.Central(vs, g.disputed)
		}
	}
	t.Metrics = out
	return t
}
