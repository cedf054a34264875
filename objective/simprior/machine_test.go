package simprior_test

import (
	"context"
	"slices"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
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

// The predictions on scaled machines are remembered, and what is
// remembered is what a fresh prior simulates: for each config, machine
// and benchmark (full or screening) its own answer.
func TestSimPriorRemembersPredictionsOnMachines(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c1 := sp.WithTargetEngine(lab.Expert("glm52"))
	c2 := c1.Clone()
	c2["max_running"] = int64(128)
	type ask struct {
		c         space.Config
		mem, over float64
		screen    bool
	}
	asks := []ask{{c1, 1.105, 1, false}, {c1, 1.3, 1, false}, {c1, 1.105, 1.5, false}, {c1, 1.105, 1, true}, {c2, 1.105, 1, false}}
	predict := func(p search.Prior, a ask) []float64 {
		var v []float64
		if a.screen {
			v, _ = p.(search.MachineScreener).ScreenOn(ctx, a.c, a.mem, a.over)
		} else {
			v, _ = p.(search.MachinePredictor).PredictOn(ctx, a.c, a.mem, a.over)
		}
		return v
	}
	// What the uncached path answers: each ask on a prior of its own.
	var want [][]float64
	for _, a := range asks {
		want = append(want, predict(simprior.New(sp, sim.DefaultCards()), a))
	}
	for i := 1; i < len(want); i++ {
		if slices.Equal(want[i], want[0]) {
			t.Fatalf("ask %d predicts as ask 0 (%v): the check cannot tell a key that misses the machine, the benchmarks or the config", i, want[0])
		}
	}
	p := simprior.New(sp, sim.DefaultCards())
	for round := range 2 {
		for i := range asks {
			if round == 1 {
				i = len(asks) - 1 - i // in another order
			}
			if got := predict(p, asks[i]); !slices.Equal(got, want[i]) {
				t.Errorf("round %d, ask %d: %v, uncached %v", round, i, got, want[i])
			}
		}
		if n := simprior.MachineMemoLen(p); n != len(asks) {
			t.Errorf("round %d: %d predictions remembered after %d asks", round, n, len(asks))
		}
	}
}
