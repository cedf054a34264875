package samplers

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

func TestGridEnumeratesConditionalSpaceOnce(t *testing.T) {
	sp := searchtest.TestSpace("grid")
	g := search.Grid(sp)
	// mode=a: 3 values of n; mode=b: 3 × 3 values of x.
	if len(g) != 12 {
		t.Fatalf("grid has %d configs, want 12: %v", len(g), g)
	}
	s, err := New(context.Background(), sp.Study.Sampler, sp, 1, nil, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 12; i++ {
		c, err := searchtest.AskOne(s)
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
		if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := searchtest.AskOne(s); err != search.ErrExhausted {
		t.Fatalf("Ask after the whole grid = %v, want ErrExhausted", err)
	}
}

func TestAskNeverRepeatsAToldConfig(t *testing.T) {
	for _, kind := range []string{"tpe", "random"} {
		sp := searchtest.TestSpace(kind)
		var history []search.Observation
		for _, c := range search.Grid(sp)[:10] {
			history = append(history, search.Observation{Config: c, State: search.Complete, Value: 1})
		}
		s, err := New(context.Background(), sp.Study.Sampler, sp, 7, history, zerolog.Nop(), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		told := map[string]bool{}
		for _, h := range history {
			told[h.Config.Key()] = true
		}
		for i := 0; i < 2; i++ {
			c, err := searchtest.AskOne(s)
			if err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if told[c.Key()] {
				t.Fatalf("%s proposed an already measured config %v", kind, c)
			}
			told[c.Key()] = true
			if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: 0}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := searchtest.AskOne(s); err != search.ErrExhausted {
			t.Fatalf("%s: Ask on an exhausted space = %v, want ErrExhausted", kind, err)
		}
	}
}

func TestRandomSamplerIsDeterministicForASeed(t *testing.T) {
	draw := func(seed int64) []string {
		sp := searchtest.TestSpace("random")
		sp.Params[2].Step = 0 // continuous, so the space is not exhausted
		s, err := New(context.Background(), sp.Study.Sampler, sp, seed, nil, zerolog.Nop(), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for i := 0; i < 8; i++ {
			c, err := searchtest.AskOne(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, c.Key())
			_ = s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: 0})
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
		Objectives: []space.Objective{searchtest.MaxObj("y")},
		Params:     []space.Param{{Name: "x", Kind: space.Float, Low: 0, High: 1}},
	}
	s, err := New(context.Background(), sp.Study.Sampler, sp, 11, nil, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := func(x float64) float64 { return -(x - 0.73) * (x - 0.73) }
	bestStartup, best := math.Inf(-1), math.Inf(-1)
	for i := 0; i < 50; i++ {
		c, err := searchtest.AskOne(s)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := c.Float("x")
		y := f(x)
		best = math.Max(best, y)
		if i < search.StartupTrials {
			bestStartup = best
		}
		if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: y}); err != nil {
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
	sp := searchtest.TestSpace("cmaes")
	sp.Params = append(sp.Params, space.Param{Name: "mem", Kind: space.Float, Low: 0.5, High: 0.9})
	s, err := New(context.Background(), sp.Study.Sampler, sp, 3, nil, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 25; i++ {
		c, err := searchtest.AskOne(s)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := c.Float("mem")
		if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: -(m - 0.8) * (m - 0.8)}); err != nil {
			t.Fatal(err)
		}
	}
}

// A space without an engine knob: proposals lack "engine", stored trials
// (and so the history told on resume) carry the target's engine. The two
// must be recognised as the same config.
func TestTargetEngineConfigsAreRecognised(t *testing.T) {
	sp := searchtest.TestSpace("grid")
	var history []search.Observation
	for _, c := range search.Grid(sp)[:11] {
		history = append(history, search.Observation{Config: sp.WithTargetEngine(c), State: search.Complete, Value: 1})
	}
	s, err := New(context.Background(), sp.Study.Sampler, sp, 2, history, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := searchtest.AskOne(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range history {
		if h.Config.Key() == sp.WithTargetEngine(c).Key() {
			t.Fatalf("grid proposed %v again after a resume", c)
		}
	}
	if _, err := s.Ask(context.Background(), 1, []space.Config{sp.WithTargetEngine(c)}); !errors.Is(err, search.ErrPending) {
		t.Errorf("Ask with the last point pending = %v, want ErrPending (12 grid points, 11 measured, 1 running)", err)
	}
	if err := s.Tell(context.Background(), search.Observation{Config: sp.WithTargetEngine(c), State: search.Complete, Value: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := searchtest.AskOne(s); !errors.Is(err, search.ErrExhausted) {
		t.Errorf("Ask after the last point = %v, want ErrExhausted", err)
	}
}
