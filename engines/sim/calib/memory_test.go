package calib

import (
	"context"
	"testing"

	"github.com/servetune/servetune/engines/sim"
)

// startsWithin: config i starts when need[i] × the model's memory
// overhead fits in 1.
func startsWithin(need []float64) func(*sim.Cards) []bool {
	return func(c *sim.Cards) []bool {
		m, _ := c.Model("GLM-5.2")
		out := make([]bool, len(need))
		for i, n := range need {
			out[i] = n*orOne(m.MemOverhead) <= 1
		}
		return out
	}
}

// A reality with 20% more memory overhead: the configs needing 85%+ of
// the budget ran out of memory; the fit moves the cliff to separate them.
func TestMemoryOverheadFitsWhichConfigsRanOutOfMemory(t *testing.T) {
	need := []float64{0.5, 0.7, 0.8, 0.85, 0.9, 1.0}
	ran := []bool{true, true, true, false, false, false}
	p := problem(t, 8, truthWith(t, 0.75, 1.4))
	p.Ran, p.Starts = ran, startsWithin(need)
	res, err := Fit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var got float64
	for _, f := range res.Fitted {
		if f.Name == "model GLM-5.2 mem_overhead" {
			got = f.Scale
		}
	}
	if got < 1/0.85 || got > 1/0.8 {
		t.Errorf("mem_overhead ×%v, want in [%.3f, %.3f]", got, 1/0.85, 1/0.8)
	}
	if m := res.Memory; m == nil || m.Configs != 6 || m.Before != 3 || m.After != 6 {
		t.Errorf("agreement %+v, want 3 → 6 of 6", res.Memory)
	}
}

func TestMemoryOverheadStaysWithoutEvidence(t *testing.T) {
	p := problem(t, 8, truthWith(t, 0.75, 1.4))
	p.Ran, p.Starts = []bool{true, true}, startsWithin([]float64{0.5, 0.9})
	res, err := Fit(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Fitted {
		if f.Name == "model GLM-5.2 mem_overhead" {
			t.Errorf("mem_overhead fitted ×%v with every config starting as predicted", f.Scale)
		}
	}
}
