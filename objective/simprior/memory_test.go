package simprior_test

import (
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/lab"
)

// The memory plan on scaled cards: the expert's GLM-5.2 config starts on
// the card, not on half its memory nor with three times its overheads,
// and a config the engine refuses outright is no memory matter.
func TestMemoryPlanScalesTheCards(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	mp := simprior.NewMemoryPlan(sim.DefaultCards())
	c := sp.WithTargetEngine(lab.Expert("glm52"))
	cases := []struct {
		name           string
		c              space.Config
		mem, overhead  float64
		fits, isMemory bool
	}{
		{"the card", c, 1, 1, true, true},
		{"half the memory", c, 0.5, 1, false, true},
		{"three times the overheads", c, 1, 3, false, true},
		{"an engine that is not simulated", space.Config{"engine": "no-such-engine"}, 1, 1, false, false},
	}
	for _, k := range cases {
		fits, ok := mp.Fits(k.c, sp.Target, k.mem, k.overhead)
		if fits != k.fits || ok != k.isMemory {
			t.Errorf("%s: fits %v (a memory matter %v), want %v (%v)", k.name, fits, ok, k.fits, k.isMemory)
		}
	}
	if fits, _ := mp.Fits(c, sp.Target, 1, 1); fits != (sim.New().Fits(c, sp.Target) == nil) {
		t.Error("the unscaled plan disagrees with the simulator's")
	}
}
