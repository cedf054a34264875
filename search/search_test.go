package search

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

func maxObj(m string) space.Objective { return space.Objective{Metric: m, Direction: space.Maximize} }
func minObj(m string) space.Objective { return space.Objective{Metric: m, Direction: space.Minimize} }

func TestDominatesFeasibilityFirst(t *testing.T) {
	objs := []space.Objective{maxObj("tps"), minObj("tpot")}
	cases := []struct {
		name string
		a, b Point
		want bool
	}{
		{"better on both", Point{Values: []float64{10, 5}}, Point{Values: []float64{8, 6}}, true},
		{"trade-off", Point{Values: []float64{10, 7}}, Point{Values: []float64{8, 6}}, false},
		{"equal", Point{Values: []float64{10, 5}}, Point{Values: []float64{10, 5}}, false},
		{"better on one, tied on other", Point{Values: []float64{10, 5}}, Point{Values: []float64{9, 5}}, true},
		{"feasible beats infeasible", Point{Values: []float64{1, 100}}, Point{Values: []float64{10, 1}, Violation: 0.1}, true},
		{"infeasible never beats feasible", Point{Values: []float64{10, 1}, Violation: 0.1}, Point{Values: []float64{1, 100}}, false},
		{"less violation wins", Point{Values: []float64{1, 1}, Violation: 0.1}, Point{Values: []float64{9, 1}, Violation: 0.5}, true},
	}
	for _, c := range cases {
		if got := Dominates(c.a, c.b, objs); got != c.want {
			t.Errorf("%s: Dominates = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFrontAndBest(t *testing.T) {
	objs := []space.Objective{maxObj("tps"), minObj("tpot")}
	pts := []Point{
		{Values: []float64{100, 50}},                 // 0 front
		{Values: []float64{80, 30}},                  // 1 front
		{Values: []float64{90, 60}},                  // 2 dominated by 0
		{Values: []float64{200, 10}, Violation: 0.2}, // 3 infeasible
		{Values: []float64{60, 20}},                  // 4 front
		{Values: []float64{70, math.NaN()}},          // 5 incomplete
	}
	got := Front(pts, objs)
	want := []int{0, 1, 4}
	if len(got) != len(want) {
		t.Fatalf("front = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("front = %v, want %v (ordered by first objective)", got, want)
		}
	}
	if b := Best(pts, objs); b != 0 {
		t.Errorf("best = %d, want 0 (infeasible 3 excluded)", b)
	}
	if b := Best(pts[3:4], objs); b != -1 {
		t.Errorf("best of only infeasible = %d, want -1", b)
	}
}

// askOne asks for one config, as a study with one worker does.
func askOne(s Sampler) (space.Config, error) {
	cs, err := s.Ask(context.Background(), 1, nil)
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

func testSpace(sampler string) *space.Space {
	when, _ := space.ParseExpr(`mode == "b"`)
	return &space.Space{
		Study:      space.Study{Name: "t", Sampler: sampler, NTrials: 10},
		Target:     space.Target{Engine: "vllm", GPUs: 8},
		Objectives: []space.Objective{maxObj("y")},
		Params: []space.Param{
			{Name: "mode", Kind: space.Categorical, Values: []any{"a", "b"}},
			{Name: "n", Kind: space.Int, Low: 1, High: 3},
			{Name: "x", Kind: space.Float, Low: 0, High: 1, Step: 0.5, When: when},
		},
	}
}

func TestGridEnumeratesConditionalSpaceOnce(t *testing.T) {
	sp := testSpace("grid")
	g := Grid(sp)
	// mode=a: 3 values of n; mode=b: 3 × 3 values of x.
	if len(g) != 12 {
		t.Fatalf("grid has %d configs, want 12: %v", len(g), g)
	}
	s, err := NewSampler(context.Background(), sp.Study.Sampler, sp, 1, nil, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 12; i++ {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		if seen[c.Key()] {
			t.Fatalf("grid proposed %v twice", c)
		}
		seen[c.Key()] = true
		if _, hasX := c["x"]; hasX != (c["mode"] == "b") {
			t.Fatalf("config %v ignores the when condition", c)
		}
		if err := s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := askOne(s); err != ErrExhausted {
		t.Fatalf("Ask after the whole grid = %v, want ErrExhausted", err)
	}
}

func TestAskNeverRepeatsAToldConfig(t *testing.T) {
	for _, kind := range []string{"tpe", "random"} {
		sp := testSpace(kind)
		var history []Observation
		for _, c := range Grid(sp)[:10] {
			history = append(history, Observation{Config: c, State: Complete, Value: 1})
		}
		s, err := NewSampler(context.Background(), sp.Study.Sampler, sp, 7, history, zerolog.Nop(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		told := map[string]bool{}
		for _, h := range history {
			told[h.Config.Key()] = true
		}
		for i := 0; i < 2; i++ {
			c, err := askOne(s)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if told[c.Key()] {
				t.Fatalf("%s proposed an already measured config %v", kind, c)
			}
			told[c.Key()] = true
			if err := s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: 0}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := askOne(s); err != ErrExhausted {
			t.Fatalf("%s: Ask on an exhausted space = %v, want ErrExhausted", kind, err)
		}
	}
}

func TestRandomSamplerIsDeterministicForASeed(t *testing.T) {
	draw := func(seed int64) []string {
		sp := testSpace("random")
		sp.Params[2].Step = 0 // continuous, so the space is not exhausted
		s, err := NewSampler(context.Background(), sp.Study.Sampler, sp, seed, nil, zerolog.Nop(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := 0; i < 8; i++ {
			c, err := askOne(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c.Key())
			_ = s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: 0})
		}
		return out
	}
	a, b, c := draw(3), draw(3), draw(4)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different draws: %v vs %v", a, b)
		}
	}
	same := true
	for i := range a {
		same = same && a[i] == c[i]
	}
	if same {
		t.Fatal("different seeds drew the same configs")
	}
}

// TPE must learn: on a smooth one-dimensional landscape it ends close to
// the optimum, and closer than its own random start-up phase got.
func TestTPEConvergesOnAQuadratic(t *testing.T) {
	sp := &space.Space{
		Study:      space.Study{Name: "q", Sampler: "tpe"},
		Target:     space.Target{Engine: "vllm"},
		Objectives: []space.Objective{maxObj("y")},
		Params:     []space.Param{{Name: "x", Kind: space.Float, Low: 0, High: 1}},
	}
	s, err := NewSampler(context.Background(), sp.Study.Sampler, sp, 11, nil, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := func(x float64) float64 { return -(x - 0.73) * (x - 0.73) }
	bestStartup, best := math.Inf(-1), math.Inf(-1)
	for i := 0; i < 50; i++ {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := c.Float("x")
		y := f(x)
		best = math.Max(best, y)
		if i < StartupTrials {
			bestStartup = best
		}
		if err := s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: y}); err != nil {
			t.Fatal(err)
		}
	}
	if best < -0.0009 { // |x - 0.73| < 0.03
		t.Errorf("TPE best after 50 trials = %v, want within 0.03 of the optimum", best)
	}
	if best <= bestStartup {
		t.Errorf("TPE did not improve on its random start (%v vs %v)", best, bestStartup)
	}
}

// CMA-ES on a space with categorical knobs: goptuna's default search-space
// intersection panics on categorical distributions, so the numeric space
// is given explicitly and categoricals go to TPE.
func TestCMAESWithCategoricalKnobs(t *testing.T) {
	sp := testSpace("cmaes")
	sp.Params = append(sp.Params, space.Param{Name: "mem", Kind: space.Float, Low: 0.5, High: 0.9})
	s, err := NewSampler(context.Background(), sp.Study.Sampler, sp, 3, nil, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 25; i++ {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := c.Float("mem")
		if err := s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: -(m - 0.8) * (m - 0.8)}); err != nil {
			t.Fatal(err)
		}
	}
}

// A space without an engine knob: proposals lack "engine", stored trials
// (and so the history told on resume) carry the target's engine. The two
// must be recognised as the same config.
func TestTargetEngineConfigsAreRecognised(t *testing.T) {
	sp := testSpace("grid")
	var history []Observation
	for _, c := range Grid(sp)[:11] {
		history = append(history, Observation{Config: sp.WithTargetEngine(c), State: Complete, Value: 1})
	}
	s, err := NewSampler(context.Background(), sp.Study.Sampler, sp, 2, history, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := askOne(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range history {
		if h.Config.Key() == sp.WithTargetEngine(c).Key() {
			t.Fatalf("grid proposed %v again after a resume", c)
		}
	}
	if _, err := s.Ask(context.Background(), 1, []space.Config{sp.WithTargetEngine(c)}); !errors.Is(err, ErrPending) {
		t.Errorf("Ask with the last point pending = %v, want ErrPending (12 grid points, 11 measured, 1 running)", err)
	}
	if err := s.Tell(context.Background(), Observation{Config: sp.WithTargetEngine(c), State: Complete, Value: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := askOne(s); !errors.Is(err, ErrExhausted) {
		t.Errorf("Ask after the last point = %v, want ErrExhausted", err)
	}
}
