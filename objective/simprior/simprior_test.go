package simprior_test

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/lab"
)

// The prior is offered only where the simulator knows the target, and
// predicts the expert's GLM-5.2 config as feasible, every objective a
// finite positive value, on the full benchmark and on the screening one.
func TestSimPriorPredictsWhereTheSimulatorKnowsTheTarget(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	cards := sim.DefaultCards()
	off := *sp
	off.Study.Prior = space.PriorNone
	unknown := *sp
	unknown.Target.GPU = "no-such-gpu"
	for name, s := range map[string]*space.Space{"prior = none": &off, "a GPU without a card": &unknown} {
		if p := simprior.New(s, cards); p != nil {
			t.Errorf("%s: a prior %T, want none", name, p)
		}
	}
	p, ok := simprior.New(sp, cards).(search.Screener)
	if !ok {
		t.Fatalf("the GLM-5.2 study's prior does not screen on shortened benchmarks")
	}
	c := lab.Expert("glm52")
	full, okFull := p.Predict(context.Background(), c)
	fast, okFast := p.Screen(context.Background(), c)
	for name, vals := range map[string][]float64{"full": full, "screening": fast} {
		if !okFull || !okFast || len(vals) != len(sp.Objectives) {
			t.Fatalf("%s: %v (feasible %v, %v), want %d objectives", name, vals, okFull, okFast, len(sp.Objectives))
		}
		for _, v := range vals {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Errorf("%s: objective value %v", name, v)
			}
		}
	}
}
