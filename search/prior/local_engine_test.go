package prior

import (
	"context"
	"testing"

	"github.com/servetune/servetune/search"
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

// oneObjSpace is twoEngineSpace with its objective obj alone: 0 is
// throughput (maximize), 1 is TPOT (minimize).
func oneObjSpace(obj int) *space.Space {
	sp := twoEngineSpace()
	sp.Objectives = sp.Objectives[obj : obj+1]
	return sp
}

// localAfterSGLang is local search's step after sglang n=1..8 measured
// at scale × the cards' throughput, off by ×0.7 or ×1.3 on alternate n
// (an error the residual cannot remove, so the prior is caught wrong and
// local search is due).
func localAfterSGLang(t *testing.T, scale float64) space.Config {
	return localAfterSGLangOn(t, 0, scale)
}

// localAfterSGLangOn is localAfterSGLang with objective obj alone,
// measured at scale × the cards' value of it. For TPOT (lower is better
// at lower n) sglang n=4..11 are measured, so that sglang's own
// unmeasured best, n=1..3, is there to step to.
func localAfterSGLangOn(t *testing.T, obj int, scale float64) space.Config {
	t.Helper()
	p := func(c space.Config) ([]float64, bool) {
		v, ok := twoEnginePrior(c)
		return v[obj : obj+1], ok
	}
	s := newPriorSampler(t, oneObjSpace(obj), priorFunc(p)).(*sampler)
	ctx := context.Background()
	first := int64(1 + 3*obj)
	for n := first; n < first+8; n++ {
		cfg := space.Config{"engine": "sglang", "n": n}
		v, _ := p(cfg)
		f := 0.7
		if n%2 == 0 {
			f = 1.3
		}
		y := v[0] * scale * f
		s.st.note(ctx, cfg, "prior")
		if err := s.Tell(ctx, search.Observation{Config: cfg, State: search.Complete, Value: y, Values: []float64{y}}); err != nil {
			t.Fatal(err)
		}
	}
	if !localDue(s.st.trust.errs, s.st.trust.ranks(), true, 1) {
		t.Fatalf("setup: local search not due (errors %v)", s.st.trust.errs)
	}
	got, ok := s.local.step(ctx, nil, true)
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

// A latency objective never probes: measured at 2.5× the cards' TPOT
// (too optimistic), 0.4× (too cautious) or as forecast, local search
// keeps to sglang. fam8 read a latency's log miss as a throughput's and
// probed vllm at 0.4×.
func TestLocalSearchDoesNotProbeOnALatencyObjective(t *testing.T) {
	for _, scale := range []float64{2.5, 0.4, 1} {
		if got := localAfterSGLangOn(t, 1, scale); got["engine"] != "sglang" {
			t.Errorf("TPOT at %v× the cards: local step %v, want sglang", scale, got)
		}
	}
}
