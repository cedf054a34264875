package prior

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// The Qwen3-8B family's seed 63 in small: SGLang's completed trials miss
// by ×2, vLLM's only trial was pruned and its projection misses by 3%.
func TestResidualPrunedEvidenceForAnUnmeasuredValue(t *testing.T) {
	sglang := func(bs int) space.Config { return space.Config{"engine": "sglang", "variant": "FP8", "bs": bs} }
	vllm := space.Config{"engine": "vllm", "variant": "FP8"}
	build := func(pruned bool) *residual {
		r := newResidual(1)
		for _, bs := range []int{8, 32, 64} {
			r.add(0, sglang(bs), math.Log(2))
		}
		if pruned {
			r.addPruned(0, space.Config{"engine": "vllm", "variant": "BF16"}, math.Log(1.03))
		}
		return r
	}
	mean, miss := math.Log(2), math.Log(1.03)
	want := mean + (miss-mean)*1/(1+prunedShrink)
	cases := []struct {
		name string
		r    *residual
		c    space.Config
		want float64
	}{
		{"without pruned evidence: the completed trials' mean", build(false), vllm, mean},
		{"an engine only pruned trials ran: their deviation, shrunk", build(true), vllm, want},
		{"a value completed trials had ignores pruned evidence", build(true), sglang(8), mean},
	}
	for _, c := range cases {
		if got := c.r.predict(0, c.c); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: predict = %.4f, want %.4f", c.name, got, c.want)
		}
	}
}

// Pruned evidence is kept per engine only: a pruned trial's other knob
// values no completed trial had keep the completed trials' mean, and an
// engine's several pruned trials average.
func TestResidualPrunedEvidenceIsPerEngine(t *testing.T) {
	r := newResidual(1)
	r.add(0, space.Config{"engine": "sglang", "block_size": 16}, math.Log(2))
	r.addPruned(0, space.Config{"engine": "sglang", "block_size": 32}, 0)
	r.addPruned(0, space.Config{"engine": "vllm", "block_size": 32}, 0.1)
	r.addPruned(0, space.Config{"engine": "vllm", "block_size": 64}, 0.3)
	if got := r.predict(0, space.Config{"engine": "sglang", "block_size": 32}); math.Abs(got-math.Log(2)) > 1e-9 {
		t.Errorf("sglang, block_size 32: predict = %.4f, want the mean %.4f", got, math.Log(2))
	}
	mean := math.Log(2)
	want := mean + (0.2-mean)*2/(2+prunedShrink)
	if got := r.predict(0, space.Config{"engine": "vllm", "block_size": 32}); math.Abs(got-want) > 1e-9 {
		t.Errorf("vllm: predict = %.4f, want %.4f", got, want)
	}
}

// Told through the prior: sglang's completed trials run at twice the
// cards' TPOT, vllm's one pruned trial projects its card's value. vllm
// is corrected by its own pruned evidence, not by sglang's ×2; a pruned
// trial without a projection teaches nothing, and relearning on another
// machine keeps what the pruned trial taught.
func TestPriorLearnsAnEngineFromItsPrunedTrials(t *testing.T) {
	for _, c := range []struct {
		name      string
		projected bool
		wantBelow float64 // vllm's correction (log), at most
		wantAbove float64
	}{
		{"a projection: vllm's own miss, shrunk", true, 0.3, 0.1},
		{"no projection: sglang's mean", false, 0.7, 0.69},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := func(cfg space.Config) ([]float64, bool) {
				v, ok := twoEnginePrior(cfg)
				return v[1:], ok
			}
			s := newPriorSampler(t, oneObjSpace(1), priorFunc(p)).(*sampler)
			ctx := context.Background()
			for n := int64(1); n <= 3; n++ {
				cfg := space.Config{"engine": "sglang", "n": n}
				y := 2 * 10 * float64(n)
				if err := s.Tell(ctx, search.Observation{Config: cfg, State: search.Complete, Value: y, Values: []float64{y}}); err != nil {
					t.Fatal(err)
				}
			}
			pruned := search.Observation{Config: space.Config{"engine": "vllm", "n": int64(2)}, State: search.Pruned, Value: math.NaN()}
			if c.projected {
				pruned.Value, pruned.Values = 24, []float64{24}
			}
			if err := s.Tell(ctx, pruned); err != nil {
				t.Fatal(err)
			}
			got := s.st.tab.resid.predict(0, space.Config{"engine": "vllm", "n": int64(5)})
			if got > c.wantBelow || got < c.wantAbove {
				t.Errorf("vllm's correction = %.3f, want in [%.2f, %.2f]", got, c.wantAbove, c.wantBelow)
			}
			// A change of machine relearns the residual: the pruned
			// evidence is relearnt with it (the cards' machine here).
			s.st.tab.relearn(ctx, s.st.hist.measuredCfgs, s.st.hist.prunedCfgs)
			if again := s.st.tab.resid.predict(0, space.Config{"engine": "vllm", "n": int64(5)}); math.Abs(again-got) > 1e-9 {
				t.Errorf("after relearn vllm's correction = %.3f, was %.3f", again, got)
			}
		})
	}
}
