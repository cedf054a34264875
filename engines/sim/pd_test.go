package sim

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// glmPD is GLM-5.2 as one TP8 prefill server and one TP8 decode server
// (the smallest split whose sides hold its 744 GB of FP8 weights).
func glmPD() space.Config {
	return space.Config{"engine": "sglang", "disaggregation": "pd", "kv_cache_dtype": "fp8_e4m3",
		"prefill_instances": int64(1), "decode_instances": int64(1), "prefill_tp": int64(8), "decode_tp": int64(8)}
}

var (
	// glm16 is two 8×H200 nodes; glm16Flat the same 16 GPUs on one
	// NVLink domain.
	glm16     = space.Target{Model: "zai-org/GLM-5.2-FP8", GPU: "H200", GPUs: 16, GPUsPerNode: 8, Nodes: []string{"a", "b"}}
	glm16Flat = space.Target{Model: "zai-org/GLM-5.2-FP8", GPU: "H200", GPUs: 16}
	qwen2     = space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 2}
)

func with(cfg space.Config, kv ...any) space.Config {
	out := space.Config{}
	for k, v := range cfg {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// By hand: GLM-5.2's MLA caches (512 + 64) values per layer and token,
// 78 layers, 1 byte in FP8 — 44 928 bytes a token, held whole by every
// attention-TP GPU. 8192 tokens from TP8 to TP8: each GPU moves 368.05
// MB, over NVLink at 450 × 0.8 GB/s 1.0224 ms, over a 50 GB/s NIC at
// 0.8 9.2013 ms, plus 1 ms each.
func TestKVTransferSecondsByHand(t *testing.T) {
	sm := New()
	for _, tc := range []struct {
		name  string
		cfg   space.Config
		cross bool
		want  float64
	}{
		{"nvlink", glmPD(), false, 1e-3 + 8192*44928/360e9},
		{"network", glmPD(), true, 1e-3 + 8192*44928/40e9},
		// BF16 KV doubles the bytes.
		{"bf16 kv", with(glmPD(), "kv_cache_dtype", "auto"), true, 1e-3 + 8192*2*44928/40e9},
		// A DP-attention decode rank is one GPU receiving one latent copy,
		// spread over the 8 prefill GPUs: no slower per token.
		{"dp-attention decode", with(glmPD(), "decode_dp", int64(8), "decode_enable_dp_attention", true), true, 1e-3 + 8192*44928/40e9},
		// A DP-attention prefill rank is one GPU that must feed all 8
		// decode GPUs their copy.
		{"dp-attention prefill", with(glmPD(), "prefill_dp", int64(8), "prefill_enable_dp_attention", true), true, 1e-3 + 8*8192*44928/40e9},
	} {
		got, err := sm.KVTransferSeconds(tc.cfg, glm16, 8192, tc.cross)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if math.Abs(got.Seconds()-tc.want) > 1e-6 {
			t.Errorf("%s: %v, want %.4f ms", tc.name, got, tc.want*1e3)
		}
	}
	// A GQA model shards KV heads: Qwen3-8B (8 KV heads × 128, 36 layers,
	// BF16) from TP1 to TP2 — each decode GPU receives half, the one
	// prefill GPU sends both halves: 147 456 bytes a token on one link.
	cfg := space.Config{"engine": "vllm", "disaggregation": "pd", "prefill_tp": int64(1), "decode_tp": int64(2)}
	got, err := sm.KVTransferSeconds(cfg, space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 3}, 1000, false)
	if want := 1e-3 + 1000*147456/360e9; err != nil || math.Abs(got.Seconds()-want) > 1e-6 {
		t.Errorf("Qwen3-8B TP1→TP2: %v %v, want %.4f ms", got, err, want*1e3)
	}
	if _, err := sm.KVTransferSeconds(space.Config{"engine": "sglang"}, glm16, 10, false); err == nil {
		t.Error("an aggregated config has no KV transfer")
	}
}

// One request at a time: a TTFT is prefill + transfer + the decode
// side's pick-up, so the same deployment across two nodes is slower to
// the first token by exactly the difference of the two transfers, and
// no slower per output token.
func TestPDTTFTHoldsTheTransfer(t *testing.T) {
	p := bench.Profile{Name: "sparse", Dataset: bench.DatasetRandom, InputLen: 8192, OutputLen: 64, NumPrompts: 12, RequestRate: 0.2, Seed: 3}
	cross, mc := eval(t, glmPD(), glm16, p, 0)
	_, mf := eval(t, glmPD(), glm16Flat, p, 0)
	xfer, _ := New().KVTransferSeconds(glmPD(), glm16, 8192, true)
	for _, r := range cross {
		if !r.Success || r.TTFT < xfer {
			t.Fatalf("request %d: TTFT %v below its transfer %v (%+v)", r.Index, r.TTFT, xfer, r)
		}
	}
	nv, _ := New().KVTransferSeconds(glmPD(), glm16, 8192, false)
	gap := mc.TTFT.Mean - mf.TTFT.Mean
	t.Logf("mean TTFT %.2f ms across nodes, %.2f ms on one; transfer %v / %v", mc.TTFT.Mean, mf.TTFT.Mean, xfer, nv)
	want := (xfer - nv).Seconds() * 1e3
	if math.Abs(gap-want) > 0.05*want {
		t.Errorf("cross-node TTFT − one-node TTFT = %.3f ms, want the transfers' difference %.3f ms", gap, want)
	}
	if math.Abs(mc.TPOT.Mean-mf.TPOT.Mean) > 1e-6 {
		t.Errorf("TPOT depends on the link: %.4f vs %.4f ms", mc.TPOT.Mean, mf.TPOT.Mean)
	}
}

// The point of disaggregation: long prompts arriving while others decode
// stall an aggregated SGLang server's decode steps (its prefill step
// runs alone), so some inter-token gaps are a whole prefill long; a
// decode server never prefills, so its gaps stay one decode step.
func TestPDDecodeGapsIgnoreLongPrompts(t *testing.T) {
	p := bench.Profile{Name: "long-in", Dataset: bench.DatasetRandom, InputLen: 16384, OutputLen: 256, NumPrompts: 40, RequestRate: 0.5, Seed: 5}
	agg := space.Config{"engine": "sglang", "tp": int64(1), "dp": int64(2)}
	pd := space.Config{"engine": "sglang", "disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1),
		"prefill_tp": int64(1), "decode_tp": int64(1)}
	ratio := func(cfg space.Config) (median, worst time.Duration) {
		recs, _ := eval(t, cfg, qwen2, p, 0)
		var gaps []time.Duration
		for _, r := range recs {
			if !r.Success {
				t.Fatalf("%v: request %d failed: %s", cfg.Summary(), r.Index, r.Error)
			}
			gaps = append(gaps, r.ITL...)
		}
		slices.Sort(gaps)
		return gaps[len(gaps)/2], gaps[len(gaps)-1]
	}
	am, aw := ratio(agg)
	pm, pw := ratio(pd)
	t.Logf("ITL median/worst: aggregated %v / %v, disaggregated %v / %v", am, aw, pm, pw)
	if aw < 10*am {
		t.Errorf("aggregated: worst gap %v, median %v: long prefills should stall decoding", aw, am)
	}
	if pw > 2*pm {
		t.Errorf("disaggregated: worst gap %v, median %v: the decode server stalled", pw, pm)
	}
}

func TestPDRefusalsNameTheSide(t *testing.T) {
	sm := New()
	// 744 GB of weights do not fit on 4 H200s.
	half := with(glmPD(), "prefill_tp", int64(4))
	_, _, err := sm.Evaluate(context.Background(), half, glm16, small(4), 0)
	var f *engines.Failure
	if !errors.As(err, &f) || f.Class != engines.OOM || !strings.HasPrefix(f.Message, "prefill server: ") {
		t.Fatalf("prefill TP4: %v", err)
	}
	if err := sm.Fits(with(glmPD(), "decode_tp", int64(4)), glm16); !errors.As(err, &f) || !strings.HasPrefix(f.Message, "decode server: ") {
		t.Fatalf("decode TP4: %v", err)
	}
	// 2 prefill TP8 + 1 decode TP8 is 24 GPUs.
	two := with(glmPD(), "prefill_instances", int64(2))
	if err := sm.Fits(two, glm16); !errors.As(err, &f) || f.Class != engines.InvalidConfig || !strings.Contains(f.Message, "needs 24 GPUs") {
		t.Fatalf("24 GPUs on 16: %v", err)
	}
	if n := sm.GPUs(glmPD(), glm16); n != 16 {
		t.Errorf("GPUs = %d, want 16 (both sides)", n)
	}
	if d := sm.StartupTime(glmPD(), glm16); d <= sm.StartupTime(space.Config{"engine": "sglang", "tp": int64(8)}, glm16) {
		t.Errorf("PD startup %v is not above one server's", d)
	}
}

// The decode side holds the whole context: a request its cache cannot
// hold fails even though the prefill side could prefill it.
func TestPDDecodeCacheHoldsTheWholeContext(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "disaggregation": "pd", "prefill_tp": int64(1), "decode_tp": int64(1),
		"decode_mem_fraction": 0.25}
	ps, err := New().resolvePD(cfg, qwen2)
	if err != nil {
		t.Fatal(err)
	}
	in := ps.dPlan.kvTokens - 100
	if in+1 > ps.pPlan.kvTokens || in > 40000 {
		t.Fatalf("decode holds %d tokens, prefill %d: the test needs the decode side smaller", ps.dPlan.kvTokens, ps.pPlan.kvTokens)
	}
	p := bench.Profile{Name: "fat", Dataset: bench.DatasetRandom, InputLen: in, OutputLen: 200, NumPrompts: 1, RequestRate: 1, Seed: 1}
	recs, _, err := Evaluate(context.Background(), cfg, qwen2, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Success || !strings.Contains(recs[0].Error, "KV cache") {
		t.Fatalf("a request of %d + 200 tokens on a decode cache of %d: %+v", in, ps.dPlan.kvTokens, recs[0])
	}
	p.OutputLen = 50 // fits: the same prompt with a shorter reply
	if recs, _ := eval(t, cfg, qwen2, p, 0); !recs[0].Success {
		t.Fatalf("%d + 50 tokens on a decode cache of %d: %s", in, ps.dPlan.kvTokens, recs[0].Error)
	}
}

// The router is one FIFO server: a burst leaves it a service time apart.
func TestPDRouterQueues(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "disaggregation": "pd", "prefill_tp": int64(1), "decode_tp": int64(1)}
	ps, err := New().resolvePD(cfg, qwen2)
	if err != nil {
		t.Fatal(err)
	}
	reqs := make([]request, 5)
	for i := range reqs {
		reqs[i] = request{in: 100, out: 4, group: -1, shared: -1, after: -1}
	}
	d := newPDSim(ps, reqs, bench.Profile{}, 1)
	d.send()
	service, _, _ := pdRouter(engines.SGLang)
	for i, r := range d.reqs {
		want := float64(i+1)*service + sglangModel().requestOverhead/2
		if math.Abs(r.pr.visible-want) > 1e-12 {
			t.Errorf("request %d visible to prefill at %.6f s, want %.6f", i, r.pr.visible, want)
		}
	}
}

func TestPlacePD(t *testing.T) {
	for _, tc := range []struct {
		pg, np, dg, nd, per int
		p, d                []int
	}{
		{8, 1, 8, 1, 8, []int{0}, []int{1}},
		{4, 1, 4, 1, 8, []int{0}, []int{0}},
		{2, 3, 4, 2, 8, []int{0, 0, 0}, []int{1, 1}}, // a server is never split
		{4, 1, 8, 1, 8, []int{0}, []int{1}},
		{8, 1, 8, 1, 0, []int{0}, []int{0}},
	} {
		p, d := placePD(tc.pg, tc.np, tc.dg, tc.nd, tc.per)
		if !reflect.DeepEqual(p, tc.p) || !reflect.DeepEqual(d, tc.d) {
			t.Errorf("placePD(%d×%d, %d×%d, %d) = %v %v, want %v %v", tc.np, tc.pg, tc.nd, tc.dg, tc.per, p, d, tc.p, tc.d)
		}
	}
}

func TestPDEvaluateIsDeterministic(t *testing.T) {
	cfg := space.Config{"engine": "vllm", "disaggregation": "pd", "prefill_tp": int64(1), "decode_tp": int64(1)}
	a, m := eval(t, cfg, qwen2, small(16), 1)
	b, _ := eval(t, cfg, qwen2, small(16), 1)
	if !reflect.DeepEqual(a, b) || m.Completed != small(16).NumPrompts {
		t.Fatalf("completed %d; repeat equal: %v", m.Completed, reflect.DeepEqual(a, b))
	}
}

// The balanced profile (8192 in, 1024 out, 1000 requests at once) on a
// decode server of max_running 64 fills its cache with transferred
// prompts; requests it preempts must still finish. It once stalled with
// 943 of 1000 requests unfinished (transferred requests waited for the
// preempted ones, which waited for the cache the transferred ones held).
func TestPDBalancedDecodePressureFinishesEveryRequest(t *testing.T) {
	p, _ := bench.Lookup("balanced")
	for _, cfg := range []space.Config{
		with(glmPD(), "decode_max_running", int64(64)),
		with(glmPD(), "decode_max_running", int64(256)),
		with(glmPD(), "decode_dp", int64(8), "decode_enable_dp_attention", true, "decode_max_running", int64(512)),
	} {
		recs, _, err := New().Evaluate(context.Background(), cfg, glm16, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if !r.Success {
				t.Fatalf("%v: request %d failed: %s", cfg, r.Index, r.Error)
			}
		}
	}
}
