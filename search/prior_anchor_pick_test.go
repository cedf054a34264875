package search

import (
	"context"
	"testing"

	"github.com/servetune/servetune/space"
)

// anchorSpace is a 6×6 grid with one objective (maximised).
func anchorSpace() *space.Space {
	return &space.Space{
		Study:      space.Study{Name: "anchor", Sampler: "random", NTrials: 36},
		Target:     space.Target{Engine: "vllm", GPUs: 1},
		Objectives: []space.Objective{maxObj("y")},
		Params: []space.Param{
			{Name: "a", Kind: space.Int, Low: 1, High: 6},
			{Name: "b", Kind: space.Int, Low: 1, High: 6},
		},
	}
}

// The prior predicts y = 10 + a + b and errs in one corner only: (1, 1)
// measures three times its prediction, (1, 6), (6, 1) and the rest as
// predicted. An interaction the additive residual cannot hold; the
// prior's pick goes next to the surprise.
func TestPickRanksNextToASurprisingMeasurement(t *testing.T) {
	ctx := context.Background()
	sp := anchorSpace()
	p := priorFunc(func(c space.Config) ([]float64, bool) {
		a, _ := c.Int("a")
		b, _ := c.Int("b")
		return []float64{float64(10 + a + b)}, true
	})
	ps := newPriorSampler(t, sp, p).(*priorSampler)
	tell := func(a, b int64, y float64) {
		c := sp.WithTargetEngine(space.Config{"a": a, "b": b})
		if err := ps.Tell(ctx, Observation{Config: c, State: Complete, Value: y, Values: []float64{y}}); err != nil {
			t.Fatal(err)
		}
	}
	tell(1, 1, 36) // three times its prediction
	tell(1, 6, 17) // as predicted
	tell(6, 1, 17)
	tell(6, 6, 22)
	tell(5, 5, 20)
	c, ok := ps.pickBest(map[string]bool{}, 0)
	if !ok {
		t.Fatal("no pick")
	}
	a, _ := c.Int("a")
	b, _ := c.Int("b")
	// One knob from (1, 1): ranked on that neighbour's measured error. The
	// additive residual, which spreads (1, 1)'s surprise over a = 1 and
	// b = 1 and their measured "as predicted" partners, picks (6, 2).
	if a != 1 && b != 1 {
		t.Errorf("pick a=%d b=%d, want a neighbour of the surprising (1, 1)", a, b)
	}
}
