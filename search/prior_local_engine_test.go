package search

import (
	"context"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestCardsOffBy(t *testing.T) {
	for _, c := range []struct {
		name string
		sum  float64
		n    int
		want bool
	}{
		{"nothing measured", 0, 0, false},
		{"too few trials to judge", -3, localProbeAfter - 1, false},
		{"cards too optimistic: probe", -0.9 * 4, 4, true},
		{"cards too cautious: no probe (h200-is-b200)", 0.9 * 4, 4, false},
		{"within the noise", -0.1 * 6, 6, false},
		{"at the tolerance: not beyond", -errTolerance * 5, 5, false},
		{"just beyond it", -(errTolerance + 0.01) * localProbeAfter, localProbeAfter, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := cardsOffBy(c.sum, c.n); got != c.want {
				t.Errorf("cardsOffBy(%v, %d) = %v, want %v", c.sum, c.n, got, c.want)
			}
		})
	}
}

// oneEngineObjSpace is twoEngineSpace with throughput alone.
func oneEngineObjSpace() *space.Space {
	sp := twoEngineSpace()
	sp.Objectives = sp.Objectives[:1]
	return sp
}

// localAfterSGLang is local search's step after sglang n=1..8 measured
// at scale × the cards' throughput, off by ×0.7 or ×1.3 on alternate n
// (an error the residual cannot remove, so the prior is caught wrong and
// local search is due).
func localAfterSGLang(t *testing.T, scale float64) space.Config {
	t.Helper()
	p := func(c space.Config) ([]float64, bool) {
		v, ok := twoEnginePrior(c)
		return v[:1], ok
	}
	s := newPriorSampler(t, oneEngineObjSpace(), priorFunc(p)).(*priorSampler)
	ctx := context.Background()
	for n := int64(1); n <= 8; n++ {
		cfg := space.Config{"engine": "sglang", "n": n}
		v, _ := p(cfg)
		f := 0.7
		if n%2 == 0 {
			f = 1.3
		}
		y := v[0] * scale * f
		s.note(ctx, cfg, "prior")
		if err := s.Tell(ctx, Observation{Config: cfg, State: Complete, Value: y, Values: []float64{y}}); err != nil {
			t.Fatal(err)
		}
	}
	if !localDue(s.trust.errs, s.trust.ranks(), true, 1) {
		t.Fatalf("setup: local search not due (errors %v)", s.trust.errs)
	}
	got, ok := s.local(ctx, nil, true)
	if !ok {
		t.Fatal("no local step")
	}
	return got
}

// Every completed trial ran sglang and the cards are too optimistic (0.4
// of their throughput): local search's turn goes to vllm's best config
// (n=16), which the cards rank below sglang's and no trial measured. Main
// stepped to sglang n=16 (vllm corrected by sglang's miss).
func TestLocalSearchProbesAnEngineNoTrialCompleted(t *testing.T) {
	got := localAfterSGLang(t, 0.4)
	if n, _ := got.Int("n"); got["engine"] != "vllm" || n != 16 {
		t.Errorf("local step %v, want vllm n=16", got)
	}
}

// The cards too cautious (measured at 2.5× their throughput, as on
// h200-is-b200) or right on average: no probe, local search steps to the
// incumbent's sglang neighbours.
func TestLocalSearchDoesNotProbeWhenTheCardsAreCautious(t *testing.T) {
	for _, scale := range []float64{2.5, 1} {
		if got := localAfterSGLang(t, scale); got["engine"] != "sglang" {
			t.Errorf("scale %v: local step %v, want sglang", scale, got)
		}
	}
}
