package search

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

func TestForestFitsAStepAndKnowsWhereItIsUnsure(t *testing.T) {
	var xs [][]float64
	var ys []float64
	for i := range 40 {
		x := float64(i) / 40
		xs = append(xs, []float64{x, 0.5})
		ys = append(ys, b2f(x >= 0.5))
	}
	f := growForest(xs, ys, rand.New(rand.NewSource(1)))
	if m, _ := f.predict([]float64{0.1, 0.5}); m > 0.1 {
		t.Errorf("left of the step predicts %.2f, want ≈ 0", m)
	}
	if m, _ := f.predict([]float64{0.9, 0.5}); m < 0.9 {
		t.Errorf("right of the step predicts %.2f, want ≈ 1", m)
	}
	_, far := f.predict([]float64{0.1, 0.5})
	_, edge := f.predict([]float64{0.5, 0.5})
	if !(edge > far) {
		t.Errorf("spread at the step %.3f not above far from it %.3f", edge, far)
	}
}

func TestExpectedImprovement(t *testing.T) {
	cases := []struct{ mu, sd, target, want float64 }{
		{2, 0, 1, 1},
		{0, 0, 1, 0},
		{1, 1, 1, 1 / math.Sqrt(2*math.Pi)},
	}
	for _, c := range cases {
		if got := expectedImprovement(c.mu, c.sd, c.target); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("EI(%g, %g, %g) = %g, want %g", c.mu, c.sd, c.target, got, c.want)
		}
	}
	if expectedImprovement(0, 2, 1) <= expectedImprovement(0, 1, 1) {
		t.Error("more uncertainty below the target must promise more")
	}
}

// cliffLandscape is the first objective of moLandscape with an OOM cliff
// next to its optimum: high memory fraction with many running requests
// runs out of memory.
func cliffLandscape() (*space.Space, func(space.Config) Observation) {
	sp, f := moLandscape()
	sp.Objectives = sp.Objectives[:1]
	return sp, func(c space.Config) Observation {
		mr, _ := c.Float("max_running")
		mem, _ := c.Float("mem_fraction")
		if mem > 0.85 && mr > 144 {
			return Observation{Config: c, State: Infeasible, Class: ClassOOM, Value: math.NaN()}
		}
		v := f(c)
		return Observation{Config: c, State: Complete, Value: v[0], Values: v[:1]}
	}
}

// study runs n trials of the named sampler and returns the best value
// and the infeasible trials.
func study(t *testing.T, sp *space.Space, name string, seed int64, n int, f func(space.Config) Observation) (best float64, infeasible int) {
	t.Helper()
	s, err := NewSampler(context.Background(), name, sp, seed, nil, zerolog.Nop(), Options{NoFeasibility: true})
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		o := f(sp.WithTargetEngine(c))
		if o.State == Infeasible {
			infeasible++
		} else if o.Value > best {
			best = o.Value
		}
		if err := s.Tell(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	return best, infeasible
}

// medianOfBest is, for each sampler, the median over seeds 1..9 of its
// best after 25 trials as a fraction of the grid's optimum: the measure
// the family-finding tests compare samplers by.
func medianOfBest(t *testing.T, sp *space.Space, f func(space.Config) Observation, names ...string) []float64 {
	t.Helper()
	opt := 0.0
	for _, c := range Grid(sp) {
		if o := f(sp.WithTargetEngine(c)); o.State == Complete {
			opt = max(opt, o.Value)
		}
	}
	out := make([]float64, len(names))
	for i, name := range names {
		var r []float64
		for seed := int64(1); seed <= 9; seed++ {
			b, _ := study(t, sp, name, seed, 25, f)
			r = append(r, b/opt)
		}
		out[i] = median(r)
	}
	return out
}

// Without any feasibility rule, cbo learns the cliff and climbs to it:
// it beats random search's and motpe's median best at 30 trials (on 9
// seeds: cbo 0.979 of the optimum, motpe 0.922, random 0.901) and runs
// fewer infeasible trials than random search.
func TestCBOBeatsRandomUpToTheCliff(t *testing.T) {
	sp, f := cliffLandscape()
	opt := 0.0
	for _, c := range Grid(sp) {
		if o := f(sp.WithTargetEngine(c)); o.State == Complete {
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
	t.Logf("best/optimum at 30, median of 9: cbo %.3f (%d infeasible), motpe %.3f, random %.3f (%d)", median(cbo), cboInf, median(tpe), median(rnd), rndInf)
	if median(cbo) <= median(rnd) || median(cbo) <= median(tpe) {
		t.Errorf("cbo median %.3f does not beat random's %.3f and motpe's %.3f", median(cbo), median(rnd), median(tpe))
	}
	if cboInf >= rndInf {
		t.Errorf("cbo ran %d infeasible trials, random %d", cboInf, rndInf)
	}
}

// On two objectives the random scalarisations spread over the front.
func TestCBOCoversATradeOff(t *testing.T) {
	sp, f := moLandscape()
	var all [][]float64
	for _, c := range Grid(sp) {
		all = append(all, f(c))
	}
	front := frontValues(all, sp.Objectives)
	ref := ReferencePoint(front, sp.Objectives)
	trueHV := Hypervolume(front, sp.Objectives, ref)
	var cbo, rnd []float64
	for seed := int64(1); seed <= 7; seed++ {
		s, err := NewSampler(context.Background(), "cbo", sp, seed, nil, zerolog.Nop(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		propose := func() space.Config { c, _ := askOne(s); return c }
		pts := runMO(sp, f, propose, func(o Observation) { s.Tell(context.Background(), o) }, 40)
		cbo = append(cbo, Hypervolume(pts, sp.Objectives, ref)/trueHV)
		rng := rand.New(rand.NewSource(seed))
		rpts := runMO(sp, f, func() space.Config { return sp.Sample(rng) }, func(Observation) {}, 40)
		rnd = append(rnd, Hypervolume(rpts, sp.Objectives, ref)/trueHV)
	}
	t.Logf("hypervolume / true front's at 40, median of 7: cbo %.3f, random %.3f", median(cbo), median(rnd))
	if median(cbo) <= median(rnd) {
		t.Errorf("cbo median hypervolume %.3f does not beat random's %.3f", median(cbo), median(rnd))
	}
}

func TestOrdinalRanksNumericCategoricals(t *testing.T) {
	mr := space.Param{Name: "max_running", Kind: space.Categorical, Values: []any{int64(64), int64(128), int64(256), int64(512)}}
	chunk := space.Param{Name: "chunk", Kind: space.Categorical, Values: []any{"default", int64(8192), int64(32768)}}
	engine := space.Param{Name: "engine", Kind: space.Categorical, Values: []any{"vllm", "sglang"}}
	cases := []struct {
		p       space.Param
		v       any
		rank    float64
		numeric bool
	}{
		{mr, int64(64), 0, true},
		{mr, int64(256), 2.0 / 3, true},
		{mr, nil, -1, true},
		{chunk, "default", -1, true},
		{chunk, int64(32768), 1, true},
		{engine, "vllm", 0, false},
		{engine, nil, 0, false},
	}
	for _, c := range cases {
		if r, n := ordinal(c.p, c.v); n != c.numeric || (n && math.Abs(r-c.rank) > 1e-9) {
			t.Errorf("ordinal(%s, %v) = %g, %v; want %g, %v", c.p.Name, c.v, r, n, c.rank, c.numeric)
		}
	}
}
