package samplers

import (
	"context"
	"math"
	"testing"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// cliffLandscape is the first objective of moLandscape with an OOM cliff
// next to its optimum: high memory fraction with many running requests
// runs out of memory.
func cliffLandscape() (*space.Space, func(space.Config) search.Observation) {
	sp, f := searchtest.MOLandscape()
	sp.Objectives = sp.Objectives[:1]
	return sp, func(c space.Config) search.Observation {
		mr, _ := c.Float("max_running")
		mem, _ := c.Float("mem_fraction")
		if mem > 0.85 && mr > 144 {
			return search.Observation{Config: c, State: search.Infeasible, Class: search.ClassOOM, Value: math.NaN()}
		}
		v := f(c)
		return search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v[:1]}
	}
}

// Without any feasibility rule, cbo learns the cliff and climbs to it:
// it beats random search's and motpe's median best at 30 trials (on 9
// seeds: cbo 0.979 of the optimum, motpe 0.922, random 0.901) and runs
// fewer infeasible trials than random search.
func TestCBOBeatsRandomUpToTheCliff(t *testing.T) {
	sp, f := cliffLandscape()
	opt := 0.0
	for _, c := range search.Grid(sp) {
		if o := f(sp.WithTargetEngine(c)); o.State == search.Complete {
			opt = max(opt, o.Value)
		}
	}
	var cbo, rnd, tpe []float64
	cboInf, rndInf := 0, 0
	for seed := int64(1); seed <= 9; seed++ {
		b, inf := study(t, sp, "cbo", seed, 30, f)
		cbo, cboInf = append(cbo, b/opt), cboInf+inf
		b, inf = study(t, sp, "random", seed, 30, f)
		rnd, rndInf = append(rnd, b/opt), rndInf+inf
		b, _ = study(t, sp, "motpe", seed, 30, f)
		tpe = append(tpe, b/opt)
	}
	t.Logf("best/optimum at 30, median of 9: cbo %.3f (%d infeasible), motpe %.3f, random %.3f (%d)", searchtest.Median(cbo), cboInf, searchtest.Median(tpe), searchtest.Median(rnd), rndInf)
	if searchtest.Median(cbo) <= searchtest.Median(rnd) || searchtest.Median(cbo) <= searchtest.Median(tpe) {
		t.Errorf("cbo median %.3f does not beat random's %.3f and motpe's %.3f", searchtest.Median(cbo), searchtest.Median(rnd), searchtest.Median(tpe))
	}
	if cboInf >= rndInf {
		t.Errorf("cbo ran %d infeasible trials, random %d", cboInf, rndInf)
	}
}

// study runs n trials of the named sampler, without feasibility learning,
// and returns the best value and the infeasible trials.
func study(t *testing.T, sp *space.Space, name string, seed int64, n int, f func(space.Config) search.Observation) (best float64, infeasible int) {
	t.Helper()
	s, err := New(context.Background(), name, sp, seed, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
	if err != nil {
		t.Fatal(err)
	}
	return searchtest.Study(t, s, sp, n, f)
}
