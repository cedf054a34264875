package sim

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// A single-turn shared_prefix user sends the same prompt every round, so
// from the second round on the prefix cache serves all of it, not only
// the system prompt.
func TestRepeatedPromptsAreServedWhole(t *testing.T) {
	p := bench.Profile{Dataset: bench.DatasetSharedPrefix, Seed: 1,
		SharedPrefix: &bench.SharedPrefix{Groups: 2, UsersPerGroup: 3, SystemPromptLen: 100, QuestionLen: 1500, OutputLen: 20},
		Stages:       []bench.Stage{{Rate: 1, Duration: 30 * time.Second}}}
	if got := repeatingUsers(p); got != 6 {
		t.Fatalf("repeating users %d, want 6 (2 groups × 3 users)", got)
	}
	tg := space.Target{Engine: "vllm", Model: "Qwen/Qwen2.5-7B-Instruct", GPU: "H100", GPUs: 1}
	ttft := func(cache bool) (first, later float64) {
		recs, _ := eval(t, space.Config{"engine": "vllm", "prefix_caching": cache}, tg, p, 0)
		for i, r := range recs {
			ms := float64(r.TTFT) / float64(time.Millisecond)
			if i < 6 {
				first += ms / 6
			} else {
				later += ms / float64(len(recs)-6)
			}
		}
		return first, later
	}
	first, later := ttft(true)
	if later > 0.8*first {
		t.Errorf("with prefix caching, first-round TTFT %.1f ms, later rounds %.1f ms: later rounds should skip the 1500-token question", first, later)
	}
	if f, l := ttft(false); math.Abs(l/f-1) > 0.15 {
		t.Errorf("without prefix caching every round computes its prompt: first %.1f ms, later %.1f ms", f, l)
	}
	p.SharedPrefix.MultiTurn = true
	if got := repeatingUsers(p); got != 0 {
		t.Errorf("multi-turn prompts grow, they do not repeat: got %d", got)
	}
}

// vLLM schedules step n+1 while step n runs: a request that became visible
// after step n started waits for step n+2; an idle engine takes it at once.
func TestAsyncSchedulingCutoff(t *testing.T) {
	cases := []struct {
		engine         string
		running        bool
		from, until, t float64
		want           float64
	}{
		{"vllm", true, 1, 2, 2, 1},     // back to back: only what was visible at the previous start
		{"vllm", false, 1, 2, 2, 2},    // nothing running: schedule now
		{"vllm", true, 1, 2, 3, 3},     // the engine was idle since 2
		{"sglang", true, 1, 2, 2, 2},   // SGLang is not modelled as async
		{"trtllm", true, 1, 2, 2, 2},   // nor TRT-LLM
		{"vllm", true, 2, 2, 2, 2},     // a zero-length step
		{"vllm", true, 0.5, 2, 2, 0.5}, // a long previous step
	}
	for _, c := range cases {
		sc := newTestScheduler(t, space.Config{"engine": c.engine}, qwenTarget, small(2))
		g := sc.groups[0]
		g.from, g.until, sc.now = c.from, c.until, c.t
		if c.running {
			g.ranks[0].running = []*simReq{{}}
		}
		if got := sc.admitCutoff(g); got != c.want {
			t.Errorf("%+v: cutoff %v, want %v", c, got, c.want)
		}
	}
}

// Requests that arrive while others decode see one more step before
// their prefill than on an idle engine.
func TestArrivalDuringADecodeWaitsAStep(t *testing.T) {
	tg := space.Target{Engine: "vllm", Model: "Qwen/Qwen2.5-7B-Instruct", GPU: "H100", GPUs: 1}
	busy := bench.Profile{Dataset: "random", InputLen: 200, OutputLen: 400, NumPrompts: 60, RequestRate: 4, Seed: 2}
	_, m := eval(t, space.Config{"engine": "vllm", "prefix_caching": false}, tg, busy, 0)
	c := FittedVLLM()
	overhead := 1000 * (c[fRequest] + c[fPromptK]*float64(busy.InputLen)/1000)
	// Synchronously the wait is ~half a step plus the request's own step
	// (2 TPOTs); asynchronously one more step.
	if m.TTFT.Mean-overhead < 2.5*m.TPOT.Mean {
		t.Errorf("mean TTFT %.1f ms (%.1f ms of it overheads) with TPOT %.1f ms: an arrival mid-step waits the rest of it, the next step and its own", m.TTFT.Mean, overhead, m.TPOT.Mean)
	}
}

func TestGraphPaddedBatch(t *testing.T) {
	s, err := resolve(DefaultCards(), space.Config{"engine": "vllm", "chunked_prefill": int64(2048), "max_running": int64(128), "max_model_len": int64(4096), "tp": int64(2), "model_variant": "fp8"},
		space.Target{Engine: "vllm", Model: "Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", GPU: "H100", GPUs: 2})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := s.plan()
	if err != nil {
		t.Fatal(err)
	}
	pf := newPerf(s, plan)
	limit := min(s.graphBS, s.chunk)
	for in, want := range map[float64]float64{1: 1, 2: 2, 3: 4, 5: 8, 11: 16, 34: 40, 250: 256, 257: 272} {
		if want > float64(limit) {
			want = float64(limit)
		}
		if got := pf.graphPadded(in); got != want {
			t.Errorf("graph batch for %v tokens: %v, want %v (largest graph %d)", in, got, want, limit)
		}
	}
	if got := pf.graphPadded(float64(limit + 1)); got != float64(limit+1) {
		t.Errorf("a batch above the largest graph runs unpadded: got %v", got)
	}
	s.cudaGraph = false
	if got := pf.graphPadded(11); got != 11 {
		t.Errorf("eager: %v, want 11", got)
	}
}

// tokens_per_chunk stretches the measured inter-token gap and nothing
// else: the same tokens arrive at the same times, in fewer text chunks.
func TestTokensPerChunkStretchesITLOnly(t *testing.T) {
	tg := space.Target{Engine: "vllm", Model: "meta-llama/Llama-2-7b-hf", GPU: "H100", GPUs: 1}
	p := bench.Profile{Dataset: "random", InputLen: 500, OutputLen: 300, NumPrompts: 20, RequestRate: 2, Seed: 4}
	run := func(tpc float64) bench.Metrics {
		cs := DefaultCards()
		c := *cs
		c.Models = append([]ModelCard(nil), cs.Models...)
		for i := range c.Models {
			if strings.EqualFold(c.Models[i].Name, "Llama-2-7B") {
				c.Models[i].TokensPerChunk = tpc
			}
		}
		recs, dur, err := (&Simulator{Cards: &c}).Evaluate(context.Background(), space.Config{"engine": "vllm"}, tg, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		return bench.Summarize(recs, dur, bench.SummaryOptions{})
	}
	one, coalesced := run(0), run(1.28)
	if r := coalesced.ITL.Mean / one.ITL.Mean; math.Abs(r-1.28) > 0.03 {
		t.Errorf("ITL %.2f → %.2f ms (×%.3f), want ×1.28", one.ITL.Mean, coalesced.ITL.Mean, r)
	}
	if one.E2EL.Mean != coalesced.E2EL.Mean || one.TTFT.Mean != coalesced.TTFT.Mean {
		t.Errorf("latency %v → %v, TTFT %v → %v: chunking must not move the tokens", one.E2EL.Mean, coalesced.E2EL.Mean, one.TTFT.Mean, coalesced.TTFT.Mean)
	}
}

func TestTokensPerChunkIsValidated(t *testing.T) {
	cs := DefaultCards()
	err := cs.Add(strings.NewReader(`[[model]]
name = "x"
total_params_b = 1
active_params_b = 1
layers = 2
hidden = 64
kv_heads = 1
head_dim = 64
tokens_per_chunk = 0.5
`))
	if err == nil || !strings.Contains(err.Error(), "tokens_per_chunk") {
		t.Fatalf("want an error naming tokens_per_chunk, got %v", err)
	}
}

// Decode attention does its work per query head on every KV byte it
// reads: Qwen2.5-7B (28 query heads on 4 KV heads) pays more per context
// token than the same model with 4 query heads, whose KV cache is the
// same size. Priced by KV bytes alone, the two grew alike with context
// (issue 45: the GQA models' ITL grew with context 2× faster than
// simulated, Llama-2's MHA slower).
func TestDecodeAttentionCountsQueryHeads(t *testing.T) {
	perCtx := func(heads int) float64 {
		t.Helper()
		cards := DefaultCards()
		m, err := cards.Model("Qwen/Qwen2.5-7B-Instruct")
		if err != nil {
			t.Fatal(err)
		}
		m.Name, m.Aliases, m.Heads = "qwen-heads", nil, heads
		cards.Models = append(cards.Models, m)
		s, err := resolve(cards, space.Config{"engine": "vllm", "max_model_len": int64(4096)},
			space.Target{Engine: "vllm", Model: "qwen-heads", GPU: "H100", GPUs: 1})
		if err != nil {
			t.Fatal(err)
		}
		short, _ := decodeStep(t, s, 32, 100)
		long, _ := decodeStep(t, s, 32, 2100)
		return (long - short) / (32 * 2000)
	}
	gqa, mha := perCtx(28), perCtx(4)
	if !(gqa > 1.3*mha) {
		t.Errorf("decode step per context token: 28 query heads %.3g s, 4 query heads %.3g s; want the 28-head model over 1.3× (its attention does 7× the work on the same KV bytes)", gqa, mha)
	}
	// MLA's decode kernels pack every head into one tile over the shared
	// latent: no per-head padding to pay, the KV bytes alone.
	s, err := resolve(DefaultCards(), space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget)
	if err != nil {
		t.Fatal(err)
	}
	if _, f := decodeStep(t, s, 32, 2000); f[fDecodeAttn] != 0 || f[fKV] == 0 {
		t.Errorf("GLM-5.2 (MLA) decode: decode_attn %.3g, kv %.3g; want 0 and the KV bytes", f[fDecodeAttn], f[fKV])
	}
}
