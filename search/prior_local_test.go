package search

import (
	"context"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestLocalDue(t *testing.T) {
	for _, c := range []struct {
		name       string
		errs       []float64
		ranks, inc bool
		objectives int
		want       bool
	}{
		{"nothing measured yet", rep(1, 8), true, false, 1, false},
		{"a prior within the noise keeps its picks", rep(0.05, 8), true, true, 1, false},
		{"too few errors to judge", rep(1, minErrTrials-1), true, true, 1, false},
		{"errors beyond the tolerance hand over", rep(2*errTolerance, 8), true, true, 1, true},
		{"a ranking that fails hands over", rep(0.05, 8), false, true, 1, true},
		{"two objectives keep the hypervolume picks", rep(1, 8), false, true, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := localDue(c.errs, c.ranks, c.inc, c.objectives); got != c.want {
				t.Errorf("localDue = %v, want %v", got, c.want)
			}
		})
	}
}

func TestRankLocal(t *testing.T) {
	cs := []localCand{{"a", 1, true}, {"b", 3, true}, {"c", 9, false}, {"d", 3, true}, {"e", -2, true}}
	got := rankLocal(cs, -1)
	want := []int{1, 3, 0} // best first, ties in order, the unusable and those not above the bar dropped
	if len(got) != len(want) {
		t.Fatalf("rankLocal = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rankLocal = %v, want %v", got, want)
		}
	}
	if len(rankLocal(nil, -1)) != 0 || len(rankLocal(cs, 3)) != 0 {
		t.Error("no candidates, or none above the bar, must rank none")
	}
}

// checkerPrior predicts y = a + b off by ×0.5 or ×1.5 on alternate
// squares: an error no additive residual removes, so its measured error
// stays large, while it still ranks close variants of one config.
func checkerPrior(c space.Config) ([]float64, bool) {
	a, _ := c.Int("a")
	b, _ := c.Int("b")
	f := 0.5
	if (a+b)%2 == 0 {
		f = 1.5
	}
	return []float64{truth(c) * f}, true
}

// Once the prior's measured error is large, the turns the model-free
// sampler would get go, one in localEvery, to unmeasured one-knob
// neighbours of the best measured config.
func TestLocalSearchStepsFromTheIncumbentOnceThePriorErrs(t *testing.T) {
	sp := priorSpace()
	s := newPriorSampler(t, sp, priorFunc(checkerPrior)).(*priorSampler)
	ctx := context.Background()
	cfg := func(a, b int64) space.Config { return space.Config{"a": a, "b": b} }
	for range warmStart { // the prior's own start, not measured here
		if _, err := s.Ask(ctx, 1, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []space.Config{cfg(1, 1), cfg(1, 2), cfg(2, 1), cfg(1, 3), cfg(3, 1), cfg(2, 2), cfg(3, 2)} {
		y := truth(c)
		if err := s.Tell(ctx, Observation{Config: c, State: Complete, Value: y, Values: []float64{y}}); err != nil {
			t.Fatal(err)
		}
	}
	if s.trust.every() <= priorEvery {
		t.Fatalf("setup: the prior's share is one in %d; its errors %v should have thinned it", s.trust.every(), s.trust.errs)
	}
	inc := s.incumbent
	neighbour := func(c space.Config) bool {
		d := 0
		for _, k := range []string{"a", "b"} {
			if space.FormatValue(c[k]) != space.FormatValue(inc[k]) {
				d++
			}
		}
		return d == 1 && !s.told[ConfigKey(sp, c)]
	}
	local := 0
	for range 2 * localEvery {
		cs, err := s.Ask(ctx, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if neighbour(cs[0]) {
			local++
		}
	}
	if local < 2 {
		t.Errorf("%d of %d proposals stepped from the incumbent %v, want at least 2", local, 2*localEvery, inc.Summary())
	}
}

func TestNearBest(t *testing.T) {
	for _, c := range []struct {
		name     string
		vals     []float64
		minimize bool
		want     []int
	}{
		{"nothing measured", nil, false, nil},
		{"within the tolerance, best first", []float64{100, 95, 80, 105}, false, []int{3, 0, 1}},
		{"minimised", []float64{100, 95, 80, 105}, true, []int{2}},
		{"ties keep their order", []float64{90, 100, 100}, false, []int{1, 2, 0}},
		{"unusable values are skipped", []float64{0, -3, 50}, false, []int{2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := nearBest(c.vals, c.minimize, 0.12)
			if len(got) != len(c.want) {
				t.Fatalf("nearBest = %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("nearBest = %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestLocalScore(t *testing.T) {
	for _, c := range []struct {
		name         string
		score, errSc float64
		unseen       bool
		want         float64
	}{
		{"a seen knob value keeps its score", 2, 0.5, false, 2},
		{"an unseen one gains the measured error", 2, 0.5, true, 2.5},
		{"no error yet, no bonus", 2, 0, true, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := localScore(c.score, c.errSc, c.unseen); got != c.want {
				t.Errorf("localScore = %v, want %v", got, c.want)
			}
		})
	}
}
