package prior

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// screen predicts up to n new distinct configs that satisfy the rules.
func (t *table) screen(ctx context.Context, n int) {
	var batch []space.Config
	seen := map[string]bool{}
	for tries := 0; n > 0 && tries < 20*n; tries++ {
		c := t.sp.WithTargetEngine(t.sp.Sample(t.rng))
		k := search.ConfigKey(t.sp, c)
		if t.cands[k] != nil || seen[k] || t.sp.Check(c) != nil {
			continue
		}
		seen[k] = true
		batch = append(batch, c)
		n--
	}
	t.screenAll(ctx, batch)
}

// screenAll screens configs not screened yet and records them in the
// given order.
func (t *table) screenAll(ctx context.Context, cs []space.Config) {
	var fresh []*candidate
	for _, c := range cs {
		if k := search.ConfigKey(t.sp, c); t.cands[k] == nil {
			cd := &candidate{cfg: c}
			t.cands[k] = cd
			t.order = append(t.order, k)
			fresh = append(fresh, cd)
		}
	}
	t.screenCands(ctx, fresh)
}

// screenCands screens cds on the machine the prior predicts on, on every
// core at once, recording each result in its candidate, so the result
// does not depend on scheduling. Without a Screener, screening is the
// full prediction.
func (t *table) screenCands(ctx context.Context, cds []*candidate) {
	cs := make([]space.Config, len(cds))
	for i, cd := range cds {
		cs[i] = cd.cfg
	}
	out := parallel(ctx, cs, func(c space.Config) prediction { return predictWith(ctx, t.pred.fast, c) })
	if ctx.Err() != nil {
		return // the run is over; what was cut short is not a prediction
	}
	screens := t.pred.screens()
	for i, cd := range cds {
		cd.fast, cd.fastOK = out[i].values, out[i].feasible && len(out[i].values) == len(t.sp.Objectives)
		if !screens {
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
// the corrected screening front — at most limit of them, best first,
// among those keep leaves open (the learned memory plan's).
func (t *table) refine(ctx context.Context, limit int, keep func(*candidate) bool) {
	var todo []*candidate
	add := func(cd *candidate) {
		if !cd.refined && len(todo) < limit && !containsCand(todo, cd) {
			todo = append(todo, cd)
		}
	}
	for obj := range t.sp.Objectives {
		for _, cd := range t.topScreened(obj, refineTop, keep) {
			add(cd)
		}
	}
	if len(t.sp.Objectives) > 1 {
		for _, cd := range t.screenedFront(keep) {
			add(cd)
		}
	}
	t.refineAll(ctx, todo)
}

// refineAll fully predicts the candidates on every core, as many as the
// proposal's budget allows (the start-up has none).
func (t *table) refineAll(ctx context.Context, todo []*candidate) {
	if t.budget >= 0 {
		todo = todo[:min(len(todo), t.budget)]
		t.budget -= len(todo)
	}
	cs := make([]space.Config, len(todo))
	for i, cd := range todo {
		cs[i] = cd.cfg
	}
	out := parallel(ctx, cs, func(c space.Config) prediction { return predictWith(ctx, t.pred.full, c) })
	if ctx.Err() != nil {
		return
	}
	for i, cd := range todo {
		cd.values, cd.refined = out[i].values, true
		cd.feasible = out[i].feasible && len(out[i].values) == len(t.sp.Objectives)
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

// topScreened is the n unmeasured candidates keep leaves open with the
// best corrected screening value on objective obj.
func (t *table) topScreened(obj, n int, keep func(*candidate) bool) []*candidate {
	top := t.topScreenedWhere(obj, keep)
	return top[:min(n, len(top))]
}

// topScreenedWhere are the screened, unmeasured candidates satisfying
// keep, best first on objective obj by corrected screening value.
func (t *table) topScreenedWhere(obj int, keep func(*candidate) bool) []*candidate {
	return t.ranked(obj, func(k string, cd *candidate) ([]float64, bool) {
		return cd.fast, cd.fastOK && !t.told[k] && keep(cd)
	})
}

// ranked are the candidates whose prediction pred gives (false: left
// out), best first on objective obj by corrected value, ties in the
// candidates' order.
func (t *table) ranked(obj int, pred func(string, *candidate) ([]float64, bool)) []*candidate {
	type scored struct {
		cd *candidate
		s  float64
	}
	var all []scored
	for _, k := range t.order {
		cd := t.cands[k]
		vals, ok := pred(k, cd)
		if !ok {
			continue
		}
		if s, ok := t.score(cd, vals, true, obj); ok {
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
func (t *table) score(cd *candidate, vals []float64, ok bool, obj int) (float64, bool) {
	if !ok || obj >= len(vals) || vals[obj] <= 0 || math.IsNaN(vals[obj]) {
		return 0, false
	}
	s := math.Log(vals[obj]) + t.residOf(obj, cd)
	if t.sp.Objectives[obj].Direction == space.Minimize {
		s = -s
	}
	return s, true
}

// corrected is the candidate's prediction corrected by the residual model
// (screening values when fast, full ones otherwise).
func (t *table) corrected(cd *candidate, fast bool) []float64 {
	vals := cd.values
	if fast {
		vals = cd.fast
	}
	out := make([]float64, len(vals))
	for i, v := range vals {
		out[i] = v * math.Exp(t.residOf(i, cd))
	}
	return out
}

// screenedFront is the non-dominated set of the unmeasured candidates by
// corrected screening values, less those keep closes.
func (t *table) screenedFront(keep func(*candidate) bool) []*candidate {
	var cds []*candidate
	var pts []search.Point
	for _, k := range t.order {
		if cd := t.cands[k]; cd.fastOK && !t.told[k] {
			cds = append(cds, cd)
			pts = append(pts, search.Point{Values: t.corrected(cd, true)})
		}
	}
	var out []*candidate
	for _, i := range search.Front(pts, t.sp.Objectives) {
		if keep(cds[i]) {
			out = append(out, cds[i])
		}
	}
	return out
}
