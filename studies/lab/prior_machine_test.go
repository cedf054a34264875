package lab

import (
	"context"
	"slices"
	"testing"

	"github.com/servetune/servetune/search"
)

// The lab's prior predicts on other machines as `servetune run`'s does:
// on the card's own scales exactly as Predict, and a config its card runs
// out of memory is predicted, feasible, on a machine with more room.
func TestOraclePriorPredictsOnAnotherMachine(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	var p search.Prior = newOraclePrior(NewOracle(sp), sp)
	mp, ok := p.(search.MachinePredictor)
	if !ok {
		t.Fatal("the lab's prior is not a search.MachinePredictor")
	}
	ctx := context.Background()
	c := sp.WithTargetEngine(Expert("glm52"))
	want, ok := p.Predict(ctx, c)
	got, gotOK := mp.PredictOn(ctx, c, 1, 1)
	if !ok || !gotOK || !slices.Equal(got, want) {
		t.Errorf("on the card's scales: %v %v, Predict %v %v", got, gotOK, want, ok)
	}
	// A config one knob from the expert's that the card refuses on memory
	// and a machine with more room (or fewer overheads) starts.
	plan := p.(search.MemoryPlanner)
	for _, f := range []float64{0.9, 0.95} {
		r := c.Clone()
		r["mem_fraction"] = f
		if fits, memory := plan.MemoryFits(r, 1, 1); fits || !memory {
			continue
		}
		for _, m := range [][2]float64{{1, 0.7}, {1.1, 0.5}, {1.3, 0.3}} {
			if fits, _ := plan.MemoryFits(r, m[0], m[1]); !fits {
				continue
			}
			if _, ok := p.Predict(ctx, r); ok {
				t.Fatalf("mem_fraction %g: the card's plan refuses it, Predict starts it", f)
			}
			if v, ok := mp.PredictOn(ctx, r, m[0], m[1]); !ok || len(v) != len(sp.Objectives) || v[0] <= 0 {
				t.Errorf("mem_fraction %g on ×%g memory, ×%g overheads: %v %v, want the feasible prediction the plan says", f, m[0], m[1], v, ok)
			}
			return
		}
	}
	t.Fatal("no config one knob from the expert's is refused by the card and started by a machine with more room: the check tells nothing")
}

// The lab's prior screens on other machines too (search.MachineScreener):
// on the card's own scales exactly as Screen.
func TestOraclePriorScreensOnAnotherMachine(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	p := newOraclePrior(NewOracle(sp), sp)
	var ms search.MachineScreener = p
	ctx := context.Background()
	c := sp.WithTargetEngine(Expert("glm52"))
	want, ok := p.Screen(ctx, c)
	got, gotOK := ms.ScreenOn(ctx, c, 1, 1)
	if !ok || !gotOK || !slices.Equal(got, want) {
		t.Errorf("on the card's scales: %v %v, Screen %v %v", got, gotOK, want, ok)
	}
	if full, _ := p.Predict(ctx, c); slices.Equal(full, want) {
		t.Skip("screening does not shorten this landscape's benchmark: the check tells nothing")
	}
}
