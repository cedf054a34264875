package modelfree

import (
	"math"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

func TestFitLinearRecoversAdditiveEffects(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	w := []float64{0.5, 2, -1, 0} // intercept, then three features
	var xs [][]float64
	var ys []float64
	for range 60 {
		x := []float64{float64(rng.Intn(2)), float64(rng.Intn(2)), rng.Float64()}
		xs, ys = append(xs, x), append(ys, dot(w, x))
	}
	m := fitLinear(xs, ys)
	if !m.ok {
		t.Fatal("no posterior")
	}
	for i, want := range w {
		if math.Abs(m.mean[i]-want) > 0.1 {
			t.Errorf("weight %d = %.3f, want %.1f (mean %v)", i, m.mean[i], want, m.mean)
		}
	}
	// The posterior draws centre on the mean and narrow with data.
	spread := func(m *linearModel) float64 {
		s := 0.0
		r := rand.New(rand.NewSource(2))
		for range 200 {
			d := m.draw(r)
			s += (d[1] - m.mean[1]) * (d[1] - m.mean[1]) / 200
		}
		return math.Sqrt(s)
	}
	few := fitLinear(xs[:4], ys[:4])
	if a, b := spread(m), spread(few); !(a < b/2) {
		t.Errorf("posterior spread of a weight: %.3f with 60 points, %.3f with 4; want it to narrow", a, b)
	}
}

func TestGridSizeBoundsTheProduct(t *testing.T) {
	cat := func(n int) space.Param {
		vals := make([]any, n)
		for i := range vals {
			vals[i] = int64(i)
		}
		return space.Param{Name: "c", Kind: space.Categorical, Values: vals}
	}
	for _, c := range []struct {
		name  string
		order []space.Param
		small bool
	}{
		{"a few categoricals multiply", []space.Param{cat(4), cat(3), cat(2)}, true},
		{"a stepped float is finite", []space.Param{cat(4), {Name: "m", Kind: space.Float, Low: 0.7, High: 0.95, Step: 0.05}}, true},
		{"a continuous float is not", []space.Param{cat(2), {Name: "m", Kind: space.Float, Low: 0.7, High: 0.95}}, false},
		{"the product overflows the bound", []space.Param{cat(100), cat(100), cat(3)}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := gridSize(c.order) <= cboGridMax; got != c.small {
				t.Errorf("gridSize = %d, small %v; want small %v", gridSize(c.order), got, c.small)
			}
		})
	}
}

func TestLogScoresOrientAndFillPrunedWithTheWorst(t *testing.T) {
	sp := searchtest.TestSpace("")
	sp.Objectives = []space.Objective{searchtest.MinObj("lat")}
	order, _ := sp.Order()
	m := &cboModel{sp: sp, order: order}
	c := sp.Sample(rand.New(rand.NewSource(1)))
	m.obs = []search.Observation{
		{Config: c, State: search.Complete, Values: []float64{2}},
		{Config: c, State: search.Infeasible},
		{Config: c, State: search.Complete, Values: []float64{4}},
		{Config: c, State: search.Pruned},
	}
	_, ys := m.logScores()
	want := []float64{-math.Log(2), -math.Log(4), -math.Log(4)}
	if len(ys) != len(want) {
		t.Fatalf("scores %v, want %v", ys, want)
	}
	for i := range want {
		if math.Abs(ys[i]-want[i]) > 1e-12 {
			t.Errorf("scores %v, want %v (minimised: lower latency scores higher; pruned the worst)", ys, want)
		}
	}
}

// familyLandscape is GLM-5.2's difficulty in small: the best configs
// share three values of six knobs (each multiplies the throughput), and
// a high memory fraction with many running requests runs out of memory.
func familyLandscape() (*space.Space, func(space.Config) search.Observation) {
	two := []any{"a", "b"}
	sp := &space.Space{
		Study:      space.Study{Name: "family"},
		Target:     space.Target{GPUs: 1},
		Objectives: []space.Objective{searchtest.MaxObj("total_tps")},
		Params: []space.Param{
			{Name: "k1", Kind: space.Categorical, Values: two}, {Name: "k2", Kind: space.Categorical, Values: two},
			{Name: "k3", Kind: space.Categorical, Values: two}, {Name: "k4", Kind: space.Categorical, Values: []any{"x", "y", "z"}},
			{Name: "max_running", Kind: space.Categorical, Values: []any{int64(64), int64(128), int64(256), int64(512)}},
			{Name: "mem_fraction", Kind: space.Float, Low: 0.7, High: 0.95, Step: 0.05},
		},
	}
	return sp, func(c space.Config) search.Observation {
		mr, _ := c.Float("max_running")
		mem, _ := c.Float("mem_fraction")
		if mem > 0.85 && mr > 128 {
			return search.Observation{Config: c, State: search.Infeasible, Class: search.ClassOOM, Value: math.NaN()}
		}
		v := 1000 * math.Log2(mr) * (1 + mem)
		for k, f := range map[string]float64{"k1": 1.8, "k2": 1.6, "k3": 1.5} {
			if c.String(k) == "b" {
				v *= f
			}
		}
		if c.String("k4") == "z" {
			v *= 1.1
		}
		return search.Observation{Config: c, State: search.Complete, Value: v, Values: []float64{v}}
	}
}

// The linear sampler finds the family of the best configs where the
// forest does not: median best at 25 trials over 9 seeds beats cbo's and
// random search's.
func TestLinearFindsTheFamilyOfTheBest(t *testing.T) {
	sp, f := familyLandscape()
	m := medianOfBest(t, sp, f, "linear", "cbo", "random")
	t.Logf("best/optimum at 25, median of 9: linear %.3f, cbo %.3f, random %.3f", m[0], m[1], m[2])
	if m[0] <= m[1] || m[0] <= m[2] {
		t.Errorf("linear median %.3f does not beat cbo's %.3f and random's %.3f", m[0], m[1], m[2])
	}
}
