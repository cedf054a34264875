package simprior_test

import (
	"context"
	"slices"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/studies/lab"
)

// The simulator prior predicts on other machines (a memory probe's): on
// the card's own scales exactly as Predict; a config the card runs out of
// memory, feasibly on a machine whose plan starts it.
func TestSimPriorPredictsOnAnotherMachine(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	p := simprior.New(sp, sim.DefaultCards())
	mp, ok := p.(search.MachinePredictor)
	if !ok {
		t.Fatalf("the simulator prior %T is not a search.MachinePredictor", p)
	}
	ctx := context.Background()
	c := sp.WithTargetEngine(lab.Expert("glm52"))
	want, ok := p.Predict(ctx, c)
	if got, gotOK := mp.PredictOn(ctx, c, 1, 1); !ok || !gotOK || !slices.Equal(got, want) {
		t.Errorf("on the card's scales: %v %v, Predict %v %v", got, gotOK, want, ok)
	}
	plan := p.(search.MemoryPlanner)
	r := c.Clone()
	r["mem_fraction"] = 0.95
	if fits, memory := plan.MemoryFits(r, 1, 1); fits || !memory {
		t.Fatalf("mem_fraction 0.95 fits the card (%v) or is no memory matter (%v): the check tells nothing", fits, !memory)
	}
	for _, m := range [][2]float64{{1, 0.7}, {1.1, 0.5}, {1.3, 0.3}} {
		if fits, _ := plan.MemoryFits(r, m[0], m[1]); fits {
			if v, ok := mp.PredictOn(ctx, r, m[0], m[1]); !ok || len(v) != len(sp.Objectives) || v[0] <= 0 {
				t.Errorf("mem_fraction 0.95 on ×%g memory, ×%g overheads: %v %v, want the feasible prediction the plan says", m[0], m[1], v, ok)
			}
			return
		}
	}
	t.Fatal("no machine of the list starts mem_fraction 0.95: the check tells nothing")
}
