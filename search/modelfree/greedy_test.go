package modelfree

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

func sweep(t *testing.T, g *Greedy, f func(space.Config) search.Observation) []space.Config {
	t.Helper()
	var proposed []space.Config
	for i := 0; ; i++ {
		c, err := g.Propose(func(space.Config) bool { return false })
		if errors.Is(err, search.ErrExhausted) {
			return proposed
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > 100 {
			t.Fatal("greedy sweep does not end")
		}
		proposed = append(proposed, c)
		g.Tell(f(c))
	}
}

func TestGreedySweepOrderAndResult(t *testing.T) {
	sp, f := searchtest.GreedyLandscape()
	g := NewGreedy(sp)
	got := sweep(t, g, f)
	want := []string{
		// Engines first, each at its defaults.
		"engine=vllm mem=0.7 mr=1 spec=none",
		"engine=sglang mem=0.7 mr=1 spec=none",
		// mem at 5 points on sglang; 0.9 runs out of memory.
		"engine=sglang mem=0.75 mr=1 spec=none",
		"engine=sglang mem=0.8 mr=1 spec=none",
		"engine=sglang mem=0.85 mr=1 spec=none",
		"engine=sglang mem=0.9 mr=1 spec=none",
		// mr at the best mem (0.85); mr=4 breaks the rule and is skipped.
		"engine=sglang mem=0.85 mr=2 spec=none",
		"engine=sglang mem=0.85 mr=3 spec=none",
		// EAGLE brings steps in at its default (1), which loses; steps is
		// then inactive under the incumbent and never swept.
		"engine=sglang mem=0.85 mr=3 spec=EAGLE steps=1",
	}
	if len(got) != len(want) {
		t.Fatalf("greedy proposed %d configs, want %d:\n%v", len(got), len(want), searchtest.Summaries(got))
	}
	for i := range want {
		if got[i].Summary() != want[i] {
			t.Fatalf("proposal %d = %q, want %q\nall: %v", i, got[i].Summary(), want[i], searchtest.Summaries(got))
		}
	}
	best, o, ok := g.Best()
	if !ok || best.Summary() != "engine=sglang mem=0.85 mr=3 spec=none" {
		t.Fatalf("greedy best = %v (ok %v), want the coordinate-wise optimum", best, ok)
	}
	if math.Abs(o.Value-23.5) > 1e-9 {
		t.Errorf("best value = %v, want 23.5", o.Value)
	}
}

// A resumed study tells the history first: the sweep replays it without
// proposing those configs again and reaches the same incumbent.
func TestGreedyResumesFromHistory(t *testing.T) {
	sp, f := searchtest.GreedyLandscape()
	first := sweep(t, NewGreedy(sp), f)
	g := NewGreedy(sp)
	for _, c := range first[:5] {
		g.Tell(f(c))
	}
	rest := sweep(t, g, f)
	if fmt.Sprint(searchtest.Summaries(rest)) != fmt.Sprint(searchtest.Summaries(first[5:])) {
		t.Fatalf("resumed sweep proposed %v, want %v", searchtest.Summaries(rest), searchtest.Summaries(first[5:]))
	}
	if best, _, _ := g.Best(); best.Summary() != "engine=sglang mem=0.85 mr=3 spec=none" {
		t.Errorf("resumed best = %v", best)
	}
}

// Without an engine knob the sweep starts from the default config; a knob
// with "default" in its domain starts there; minimisation is honoured.
func TestGreedyDefaultsAndMinimise(t *testing.T) {
	sp := &space.Space{
		Target:     space.Target{Engine: "vllm"},
		Objectives: []space.Objective{searchtest.MinObj("tpot")},
		Params: []space.Param{
			{Name: "chunk", Kind: space.Categorical, Values: []any{int64(2048), space.Default, int64(8192)}},
			{Name: "mr", Kind: space.Int, Low: 1, High: 3},
		},
	}
	tpot := map[string]float64{"2048": 5, "default": 3, "8192": 4}
	f := func(c space.Config) search.Observation {
		mr, _ := c.Int("mr")
		v := tpot[c.String("chunk")] + float64(mr)
		return search.Observation{Config: c, State: search.Complete, Value: v}
	}
	g := NewGreedy(sp)
	got := searchtest.Summaries(sweep(t, g, f))
	want := []string{"chunk=default mr=1", "chunk=2048 mr=1", "chunk=8192 mr=1", "chunk=default mr=2", "chunk=default mr=3"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("sweep = %v, want %v", got, want)
	}
	if best, o, _ := g.Best(); best.Summary() != "chunk=default mr=1" || o.Value != 4 {
		t.Errorf("best = %v (%v), want chunk=default mr=1 (4)", best, o.Value)
	}
}

// In a space without an engine knob, proposals lack the engine and the
// study tells observations that carry the target's: the sweep must still
// recognise them, keep the better values and end at the same optimum.
func TestGreedyWithTargetEngine(t *testing.T) {
	sp, f := searchtest.GreedyLandscape()
	sp.Params, sp.Rules = sp.Params[1:], nil
	sp.Target.Engine = "sglang"
	g := NewGreedy(sp)
	sweep(t, g, func(c space.Config) search.Observation {
		o := f(sp.WithTargetEngine(c))
		o.Config = sp.WithTargetEngine(c)
		return o
	})
	if best, o, _ := g.Best(); best.Summary() != "mem=0.85 mr=4 spec=none" || o.Value != 26.5 {
		t.Errorf("best = %s (%v), want mem=0.85 mr=4 spec=none (26.5)", best.Summary(), o.Value)
	}
}
