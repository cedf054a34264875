package modelfree

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
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

// study runs n trials of the named sampler and returns the best value
// and the infeasible trials.
func study(t *testing.T, sp *space.Space, name string, seed int64, n int, f func(space.Config) search.Observation) (best float64, infeasible int) {
	t.Helper()
	s, err := newSampler(context.Background(), name, sp, seed, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
	if err != nil {
		t.Fatal(err)
	}
	return searchtest.Study(t, s, sp, n, f)
}

// medianOfBest is, for each sampler, the median over seeds 1..9 of its
// best after 25 trials as a fraction of the grid's optimum: the measure
// the family-finding tests compare samplers by.
func medianOfBest(t *testing.T, sp *space.Space, f func(space.Config) search.Observation, names ...string) []float64 {
	t.Helper()
	opt := 0.0
	for _, c := range search.Grid(sp) {
		if o := f(sp.WithTargetEngine(c)); o.State == search.Complete {
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
		out[i] = searchtest.Median(r)
	}
	return out
}

// On two objectives the random scalarisations spread over the front.
func TestCBOCoversATradeOff(t *testing.T) {
	sp, f := searchtest.MOLandscape()
	var all [][]float64
	for _, c := range search.Grid(sp) {
		all = append(all, f(c))
	}
	front := searchtest.FrontValues(all, sp.Objectives)
	ref := search.ReferencePoint(front, sp.Objectives)
	trueHV := search.Hypervolume(front, sp.Objectives, ref)
	var cbo, rnd []float64
	for seed := int64(1); seed <= 7; seed++ {
		s, err := newSampler(context.Background(), "cbo", sp, seed, nil, zerolog.Nop(), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		propose := func() space.Config { c, _ := searchtest.AskOne(s); return c }
		pts := searchtest.RunMO(sp, f, propose, func(o search.Observation) { s.Tell(context.Background(), o) }, 40)
		cbo = append(cbo, search.Hypervolume(pts, sp.Objectives, ref)/trueHV)
		rng := rand.New(rand.NewSource(seed))
		rpts := searchtest.RunMO(sp, f, func() space.Config { return sp.Sample(rng) }, func(search.Observation) {}, 40)
		rnd = append(rnd, search.Hypervolume(rpts, sp.Objectives, ref)/trueHV)
	}
	t.Logf("hypervolume / true front's at 40, median of 7: cbo %.3f, random %.3f", searchtest.Median(cbo), searchtest.Median(rnd))
	if searchtest.Median(cbo) <= searchtest.Median(rnd) {
		t.Errorf("cbo median hypervolume %.3f does not beat random's %.3f", searchtest.Median(cbo), searchtest.Median(rnd))
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
