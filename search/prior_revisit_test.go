package search

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestRevisitDecision(t *testing.T) {
	up, down := maxObj("y"), space.Objective{Metric: "y", Direction: space.Minimize}
	for _, c := range []struct {
		name            string
		since           int
		pred, incumbent float64
		obj             space.Objective
		want            bool
	}{
		{"too soon after the prune", revisitAfter - 1, 20, 10, up, false},
		{"ranked above the incumbent", revisitAfter, 20, 10, up, true},
		{"not above the incumbent", revisitAfter + 5, 9, 10, up, false},
		{"a tie is not a reason", revisitAfter, 10, 10, up, false},
		{"minimised: below the incumbent", revisitAfter, 5, 10, down, true},
		{"no prediction", revisitAfter, math.NaN(), 10, up, false},
		{"nothing measured yet", revisitAfter, 3, math.NaN(), up, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := revisit(c.since, c.pred, c.incumbent, c.obj); got != c.want {
				t.Errorf("revisit(%d, %v, %v) = %v, want %v", c.since, c.pred, c.incumbent, got, c.want)
			}
		})
	}
}

// A config pruned early is proposed again, once, when the prior — having
// learnt from later trials — ranks it first and above the best measured.
func TestPrunedConfigIsReproposedOnceWhenRankedTop(t *testing.T) {
	sp := priorSpace()
	s := newPriorSampler(t, sp, priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c)}, truth(c) <= 8 })).(*priorSampler)
	top, err := askOne(s) // the prior's best: y = 8
	if err != nil || truth(top) != 8 {
		t.Fatalf("first proposal %v (%v), want a y=8 config", top, err)
	}
	if err := s.Tell(context.Background(), Observation{Config: top, State: Pruned, Value: 4, Values: []float64{4}}); err != nil {
		t.Fatal(err)
	}
	measure := func(c space.Config) {
		y := truth(c)
		if err := s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: y, Values: []float64{y}}); err != nil {
			t.Fatal(err)
		}
	}
	lower := []space.Config{{"a": int64(1), "b": int64(1)}, {"a": int64(2), "b": int64(1)}}
	for _, c := range lower {
		measure(c)
	}
	if c, _ := s.pick(map[string]bool{}); ConfigKey(sp, c) == ConfigKey(sp, top) {
		t.Fatalf("re-proposed %v after only %d trials", c, len(lower))
	}
	measure(space.Config{"a": int64(1), "b": int64(2)})
	c, ok := s.pick(map[string]bool{})
	if !ok || ConfigKey(sp, c) != ConfigKey(sp, top) || s.originOf(c) != "revisit" {
		t.Fatalf("after %d later trials the prior picked %v (%s), want the pruned %v as a revisit", revisitAfter, c, s.originOf(c), top)
	}
	measure(top) // the revisit completes
	if c, _ := s.pick(map[string]bool{}); ConfigKey(sp, c) == ConfigKey(sp, top) {
		t.Errorf("a revisited config was proposed a third time")
	}
}
