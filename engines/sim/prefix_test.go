package sim

import (
	"context"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

func sharedPrefixProfile(multi bool, rate float64, d time.Duration) bench.Profile {
	return bench.Profile{Dataset: bench.DatasetSharedPrefix, Seed: 1,
		SharedPrefix: &bench.SharedPrefix{Groups: 4, UsersPerGroup: 5, SystemPromptLen: 100, QuestionLen: 450, OutputLen: 120,
			MultiTurn: multi, MaxModelLen: 4096},
		Stages: []bench.Stage{{Rate: rate, Duration: d}}}
}

func qwen7B() (space.Config, space.Target) {
	return space.Config{"engine": "vllm", "chunked_prefill": int64(2048), "max_running": int64(128)},
		space.Target{Engine: "vllm", Model: "Qwen/Qwen2.5-7B-Instruct", GPU: "H100", GPUs: 1}
}

func TestConversationRoundWaitsForThePreviousOne(t *testing.T) {
	cfg, tg := qwen7B()
	p := sharedPrefixProfile(true, 8, 20*time.Second) // 20 users: a round every 2.5 s
	pl, _ := p.Plan()
	recs, _, err := New().Evaluate(context.Background(), cfg, tg, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range pl.Requests {
		if r.After < 0 {
			continue
		}
		prev := recs[r.After]
		if recs[i].Start < prev.Start+prev.Latency-time.Microsecond {
			t.Fatalf("round %d of user %d sent at %v, before round %d ended at %v", r.Round, r.Session, recs[i].Start, r.Round-1, prev.Start+prev.Latency)
		}
		if recs[i].Start < r.Arrival-time.Microsecond { // float seconds round-trip
			t.Fatalf("request %d sent before its arrival", i)
		}
	}
}

func TestPrefixCacheServesTheConversationSoFar(t *testing.T) {
	cfg, tg := qwen7B()
	p := sharedPrefixProfile(true, 4, 30*time.Second)
	ttft := func(cache bool) float64 {
		c := space.Config{}
		for k, v := range cfg {
			c[k] = v
		}
		c["prefix_caching"] = cache
		recs, dur, err := New().Evaluate(context.Background(), c, tg, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		return bench.Summarize(recs, dur, bench.SummaryOptions{}).TTFT.Mean
	}
	on, off := ttft(true), ttft(false)
	// Later rounds carry up to ~2000 tokens of history: recomputing it
	// costs several times the ~550 new tokens.
	if on*1.5 > off {
		t.Errorf("mean TTFT %.1f ms with prefix caching, %.1f ms without: the history should be served from cache", on, off)
	}
}

// Real vLLM v0.15.1 kept TTFT within 543 ms at 20 req/s of this kind of
// load; the previous model's queue grew without bound there.
func TestTwentyRequestsPerSecondDoNotSaturate(t *testing.T) {
	for _, c := range []struct {
		model string
		tp    int64
	}{{"Qwen/Qwen2.5-7B-Instruct", 1}, {"meta-llama/Llama-3.1-70B-Instruct", 4}} {
		cfg := space.Config{"engine": "vllm", "tp": c.tp, "chunked_prefill": int64(2048), "max_running": int64(128)}
		tg := space.Target{Engine: "vllm", Model: c.model, GPU: "H100", GPUs: int(c.tp)}
		recs, dur, err := New().Evaluate(context.Background(), cfg, tg, sharedPrefixProfile(false, 20, 60*time.Second), 1)
		if err != nil {
			t.Fatal(err)
		}
		if m := bench.Summarize(recs, dur, bench.SummaryOptions{}); m.TTFT.Percentiles["p99"] > 543 {
			t.Errorf("%s: p99 TTFT %.0f ms at 20 req/s", c.model, m.TTFT.Percentiles["p99"])
		}
	}
}

func TestVLLMStepIsLinearInTheCoefficients(t *testing.T) {
	cfg, tg := qwen7B()
	sm := New()
	s, err := sm.resolve(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := s.plan()
	pf := newPerf(s, plan)
	l := []rankLoad{{decodeSeqs: 30, ctx: 60000, prefill: 700, prefillSeqs: 1, prefillCtx: 700 * 500}}
	dt, f := pf.vllmStep(l, false)
	if c := s.coef; dt != c.dot(&f) || dt <= 0 {
		t.Fatalf("step %v, coefficients · features %v", dt, c.dot(&f))
	}
	// A GPU with half the HBM bandwidth doubles the bandwidth terms.
	slow := *s
	slow.gpu.HBMTBs /= 2
	_, g := newPerf(&slow, plan).vllmStep(l, false)
	if g[fKV] != 2*f[fKV] {
		t.Errorf("KV feature %v on half the bandwidth, %v on the card", g[fKV], f[fKV])
	}
}
