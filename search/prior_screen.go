package search

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/servetune/servetune/space"
)

// Screener is a Prior that also offers a cheaper, coarser prediction
// which keeps the ranking (the simulator on a shortened benchmark). The
// prior screens many configs with Screen and predicts with Predict only
// the few that screening ranks near the top, so it can look at thousands
// of configs for the price of hundreds.
type Screener interface {
	Prior
	Screen(ctx context.Context, c space.Config) (values []float64, feasible bool)
}

// screen predicts up to n new distinct configs that satisfy the rules.
func (ps *priorSampler) screen(ctx context.Context, n int) {
	var batch []space.Config
	seen := map[string]bool{}
	for tries := 0; n > 0 && tries < 20*n; tries++ {
		c := ps.sp.WithTargetEngine(ps.sp.Sample(ps.rng))
		k := ConfigKey(ps.sp, c)
		if ps.cands[k] != nil || seen[k] || ps.sp.Check(c) != nil {
			continue
		}
		seen[k] = true
		batch = append(batch, c)
		n--
	}
	ps.screenAll(ctx, batch)
}

// screenAll screens configs not screened yet on every core at once and
// records them in the given order, so the result does not depend on
// scheduling. Without a Screener, screening is the full prediction.
func (ps *priorSampler) screenAll(ctx context.Context, cs []space.Config) {
	var fresh []space.Config
	for _, c := range cs {
		if k := ConfigKey(ps.sp, c); ps.cands[k] == nil {
			ps.cands[k] = &candidate{cfg: c}
			ps.order = append(ps.order, k)
			fresh = append(fresh, c)
		}
	}
	ok := ps.screens()
	out := parallel(ctx, fresh, func(c space.Config) prediction { return predictWith(ctx, ps.predictFast, c) })
	if ctx.Err() != nil {
		return // the run is over; what was cut short is not a prediction
	}
	for i, c := range fresh {
		cd := ps.cands[ConfigKey(ps.sp, c)]
		cd.fast, cd.fastOK = out[i].values, out[i].feasible && len(out[i].values) == len(ps.sp.Objectives)
		if !ok {
			cd.values, cd.feasible, cd.refined = cd.fast, cd.fastOK, true
		}
	}
}

type prediction struct {
	values   []float64
	feasible bool
}

func predictWith(ctx context.Context, f func(context.Context, space.Config) ([]float64, bool), c space.Config) prediction {
	v, ok := f(ctx, c)
	return prediction{v, ok}
}

// parallel maps f over cs on every core (the prior is a simulator, tens
// of milliseconds a config), keeping the order. Once ctx is cancelled it
// starts no more (a signal must act within a second, however many
// configs are left); f sees ctx too and stops the one it runs.
func parallel(ctx context.Context, cs []space.Config, f func(space.Config) prediction) []prediction {
	out := make([]prediction, len(cs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, c := range cs {
		if ctx.Err() != nil {
			break
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i] = f(c)
		}()
	}
	wg.Wait()
	return out
}

// refine fully predicts the screened candidates that rank near the top —
// the refineTop best on each objective by corrected screening value, and
// the corrected screening front — at most limit of them, best first.
func (ps *priorSampler) refine(ctx context.Context, limit int) {
	var todo []*candidate
	add := func(cd *candidate) {
		if !cd.refined && len(todo) < limit && !containsCand(todo, cd) {
			todo = append(todo, cd)
		}
	}
	for obj := range ps.sp.Objectives {
		for _, cd := range ps.topScreened(obj, refineTop) {
			add(cd)
		}
	}
	if len(ps.sp.Objectives) > 1 {
		for _, cd := range ps.screenedFront() {
			add(cd)
		}
	}
	ps.refineAll(ctx, todo)
}

// refineAll fully predicts the candidates on every core, as many as the
// proposal's budget allows (the start-up has none).
func (ps *priorSampler) refineAll(ctx context.Context, todo []*candidate) {
	if ps.budget >= 0 {
		todo = todo[:min(len(todo), ps.budget)]
		ps.budget -= len(todo)
	}
	cs := make([]space.Config, len(todo))
	for i, cd := range todo {
		cs[i] = cd.cfg
	}
	out := parallel(ctx, cs, func(c space.Config) prediction { return predictWith(ctx, ps.predictFull, c) })
	if ctx.Err() != nil {
		return
	}
	for i, cd := range todo {
		cd.values, cd.refined = out[i].values, true
		cd.feasible = out[i].feasible && len(out[i].values) == len(ps.sp.Objectives)
	}
}

func containsCand(cs []*candidate, c *candidate) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}

// topScreened is the n unmeasured candidates with the best corrected
// screening value on objective obj whose memory the plan leaves open.
func (ps *priorSampler) topScreened(obj, n int) []*candidate {
	top := ps.topScreenedWhere(obj, ps.memoryOpen)
	return top[:min(n, len(top))]
}

// topScreenedWhere are the screened, unmeasured candidates satisfying
// keep, best first on objective obj by corrected screening value.
func (ps *priorSampler) topScreenedWhere(obj int, keep func(*candidate) bool) []*candidate {
	return ps.ranked(obj, func(k string, cd *candidate) ([]float64, bool) {
		return cd.fast, cd.fastOK && !ps.told[k] && keep(cd)
	})
}

// ranked are the candidates whose prediction pred gives (false: left
// out), best first on objective obj by corrected value, ties in the
// candidates' order.
func (ps *priorSampler) ranked(obj int, pred func(string, *candidate) ([]float64, bool)) []*candidate {
	type scored struct {
		cd *candidate
		s  float64
	}
	var all []scored
	for _, k := range ps.order {
		cd := ps.cands[k]
		vals, ok := pred(k, cd)
		if !ok {
			continue
		}
		if s, ok := ps.score(cd, vals, true, obj); ok {
			all = append(all, scored{cd, s})
		}
	}
	slices.SortStableFunc(all, func(a, b scored) int { return cmp.Compare(b.s, a.s) })
	out := make([]*candidate, len(all))
	for i, s := range all {
		out[i] = s.cd
	}
	return out
}

// score is the corrected prediction on objective obj, larger is better,
// in log space; false for an infeasible or unusable prediction.
func (ps *priorSampler) score(cd *candidate, vals []float64, ok bool, obj int) (float64, bool) {
	if !ok || obj >= len(vals) || vals[obj] <= 0 || math.IsNaN(vals[obj]) {
		return 0, false
	}
	s := math.Log(vals[obj]) + ps.resid.predict(obj, cd.cfg)
	if ps.sp.Objectives[obj].Direction == space.Minimize {
		s = -s
	}
	return s, true
}

// corrected is the candidate's prediction corrected by the residual model
// (screening values when fast, full ones otherwise).
func (ps *priorSampler) corrected(cd *candidate, fast bool) []float64 {
	vals := cd.values
	if fast {
		vals = cd.fast
	}
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v * math.Exp(ps.resid.predict(i, cd.cfg))
	}
	return out
}

// screenedFront is the non-dominated set of the unmeasured candidates by
// corrected screening values.
func (ps *priorSampler) screenedFront() []*candidate {
	var cds []*candidate
	var pts []Point
	for _, k := range ps.order {
		if cd := ps.cands[k]; cd.fastOK && !ps.told[k] {
			cds = append(cds, cd)
			pts = append(pts, Point{Values: ps.corrected(cd, true)})
		}
	}
	var out []*candidate
	for _, i := range Front(pts, ps.sp.Objectives) {
		if ps.memoryOpen(cds[i]) {
			out = append(out, cds[i])
		}
	}
	return out
}
