package sim

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

var (
	glmTarget  = space.Target{Model: "zai-org/GLM-5.2-FP8", GPU: "H200", GPUs: 8}
	qwenTarget = space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}
)

func balanced() bench.Profile {
	return bench.Profile{Name: "balanced", Dataset: "random", InputLen: 8192, OutputLen: 1024, NumPrompts: 1000, RequestRate: 1000, MaxConcurrency: 512, Seed: 42}
}

func small(conc int) bench.Profile {
	return bench.Profile{Name: "small", Dataset: "random", InputLen: 1000, OutputLen: 100, RangeRatio: 0.5, NumPrompts: 64, MaxConcurrency: conc, Seed: 7}
}

func eval(t testing.TB, cfg space.Config, tgt space.Target, p bench.Profile, seed int64) ([]bench.Record, bench.Metrics) {
	t.Helper()
	recs, dur, err := Evaluate(context.Background(), cfg, tgt, p, seed)
	if err != nil {
		t.Fatalf("Evaluate(%v): %v", cfg.Summary(), err)
	}
	return recs, bench.Summarize(recs, dur, bench.SummaryOptions{})
}

func TestEvaluateIsDeterministicAndNoiseFollowsTheSeed(t *testing.T) {
	cfg := space.Config{"engine": "vllm"}
	a, _ := eval(t, cfg, qwenTarget, small(8), 1)
	b, _ := eval(t, cfg, qwenTarget, small(8), 2)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("without noise the seed must not matter")
	}
	noisy := qwenTarget
	noisy.Sim.NoiseCV = 0.1
	_, m1 := eval(t, cfg, noisy, small(8), 1)
	_, m1again := eval(t, cfg, noisy, small(8), 1)
	_, m2 := eval(t, cfg, noisy, small(8), 2)
	if m1.TotalTokenThroughput != m1again.TotalTokenThroughput {
		t.Error("same seed gave different results")
	}
	if m1.TotalTokenThroughput == m2.TotalTokenThroughput {
		t.Error("noise_cv > 0 but seeds 1 and 2 gave identical throughput")
	}
}

func TestRecordsHonourTheProfile(t *testing.T) {
	p := small(4)
	recs, m := eval(t, space.Config{"engine": "sglang"}, qwenTarget, p, 0)
	if len(recs) != p.NumPrompts || m.Completed != p.NumPrompts {
		t.Fatalf("completed %d of %d", m.Completed, p.NumPrompts)
	}
	for _, r := range recs {
		inFlight := 0
		for _, o := range recs {
			if o.Start <= r.Start && o.Start+o.Latency > r.Start {
				inFlight++
			}
		}
		if inFlight > p.MaxConcurrency {
			t.Fatalf("%d requests in flight when request %d is sent; cap %d", inFlight, r.Index, p.MaxConcurrency)
		}
	}
	for _, r := range recs {
		if r.InputTokens < 500 || r.InputTokens > 1500 || r.OutputTokens < 50 || r.OutputTokens > 150 {
			t.Fatalf("request %d lengths %d/%d outside range_ratio 0.5 of 1000/100", r.Index, r.InputTokens, r.OutputTokens)
		}
		if r.TTFT <= 0 || r.Latency <= r.TTFT || len(r.ITL) != r.OutputTokens-1 {
			t.Fatalf("request %d timing ttft=%v latency=%v itl=%d out=%d", r.Index, r.TTFT, r.Latency, len(r.ITL), r.OutputTokens)
		}
	}
}

func TestPoissonArrivalsSpreadSends(t *testing.T) {
	p := small(0)
	p.RequestRate = 2
	recs, _ := eval(t, space.Config{"engine": "vllm"}, qwenTarget, p, 0)
	last := recs[len(recs)-1].Start.Seconds()
	// 64 requests at 2/s: the last is sent after about 32 s.
	if last < 20 || last > 45 {
		t.Errorf("last send at %.1fs, want ≈32s for 64 requests at 2/s", last)
	}
}

func TestInvalidCombinationsFailLikeTheEngine(t *testing.T) {
	cases := []struct {
		name string
		cfg  space.Config
		tgt  space.Target
		line string
	}{
		{"dp attention tp%dp", space.Config{"engine": "sglang", "tp": int64(8), "dp": int64(3), "enable_dp_attention": true}, glmTarget, "assert self.tp_size % self.dp_size == 0"},
		{"too many GPUs", space.Config{"engine": "vllm", "tp": int64(2)}, qwenTarget, "World size (2) is larger"},
		{"deepep on dense", space.Config{"engine": "sglang", "moe_a2a_backend": "deepep"}, qwenTarget, "MoE"},
		{"eagle without draft", space.Config{"engine": "sglang", "speculative_algorithm": "EAGLE3"}, qwenTarget, "draft"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Evaluate(context.Background(), c.cfg, c.tgt, small(4), 0)
			f, ok := engines.AsFailure(err)
			if !ok || f.Class != engines.InvalidConfig {
				t.Fatalf("err = %v, want InvalidConfig", err)
			}
			if !strings.Contains(strings.Join(f.Lines, "\n"), c.line) {
				t.Errorf("log lines %q lack %q", f.Lines, c.line)
			}
		})
	}
}

func TestOOMSpeaksTheEnginesLanguage(t *testing.T) {
	cases := []struct {
		cfg  space.Config
		line string
	}{
		{space.Config{"engine": "sglang", "tp": int64(8), "mem_fraction": 0.5}, "Not enough memory. Please try to increase --mem-fraction-static"},
		{space.Config{"engine": "vllm", "tp": int64(8), "mem_fraction": 0.6}, "No available memory for the cache blocks"},
		{space.Config{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.85, "chunked_prefill": int64(32768)}, "torch.OutOfMemoryError: CUDA out of memory"},
	}
	for _, c := range cases {
		_, _, err := Evaluate(context.Background(), c.cfg, glmTarget, small(4), 0)
		f, ok := engines.AsFailure(err)
		if !ok || f.Class != engines.OOM {
			t.Fatalf("%s: err = %v, want OOM", c.cfg.Summary(), err)
		}
		if !strings.Contains(strings.Join(f.Lines, "\n"), c.line) {
			t.Errorf("%s: lines %q lack %q", c.cfg.Summary(), f.Lines, c.line)
		}
	}
}

func TestContextCancelStopsTheSimulation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := Evaluate(ctx, space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, balanced(), 0)
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// BenchmarkEvaluateBalanced is the speed target: simulating the
// balanced profile (1000 × 8K/1K) must take ≤ 0.5 s of CPU.
func BenchmarkEvaluateBalanced(b *testing.B) {
	for _, c := range []struct {
		name string
		cfg  space.Config
	}{
		{"vllm-tp8", space.Config{"engine": "vllm", "tp": int64(8)}},
		{"sglang-optimized", space.Config{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.85, "moe_a2a_backend": "deepep", "max_running": int64(256), "kv_cache_dtype": "fp8_e4m3"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				recs, dur, err := Evaluate(context.Background(), c.cfg, glmTarget, balanced(), 1)
				if err != nil {
					b.Fatal(err)
				}
				_ = bench.Summarize(recs, dur, bench.SummaryOptions{})
			}
		})
	}
}

// Every engine and knob of the vocabulary must simulate or fail with a
// classified failure — never hang, panic or return an unclassified error.
func TestKnobVocabularyAlwaysEndsClassified(t *testing.T) {
	cfgs := []space.Config{
		{"engine": "vllm", "speculative_algorithm": "EAGLE3", "speculative_draft_model": "Tengyunw/qwen3_8b_eagle3", "speculative_num_tokens": int64(3)},
		{"engine": "vllm", "prefix_caching": false, "kv_cache_dtype": "fp8", "max_running": int64(8), "chunked_prefill": int64(2048)},
		{"engine": "trtllm", "mem_fraction": 0.7, "cuda_graph_max_bs": int64(16)},
		{"engine": "ollama"},
		{"engine": "sglang", "disable_cuda_graph": true, "torch_compile": true, "attention_backend": "triton"},
		{"engine": "sglang", "speculative_algorithm": "NGRAM"},
		{"engine": "sglang", "speculative_algorithm": "MTP"},
		{"engine": "sglang", "chunked_prefill": "default", "max_running": "default", "model_variant": "FP8"},
	}
	for _, cfg := range cfgs {
		_, _, err := Evaluate(context.Background(), cfg, qwenTarget, small(8), 0)
		if err == nil {
			continue
		}
		if _, ok := engines.AsFailure(err); !ok {
			t.Errorf("%s: unclassified error %v", cfg.Summary(), err)
		}
	}
}

func TestPrefixCachingSpeedsUpSharedPrefixes(t *testing.T) {
	p := small(8)
	p.PrefixLen = 3000
	_, on := eval(t, space.Config{"engine": "sglang", "prefix_caching": true}, qwenTarget, p, 0)
	_, off := eval(t, space.Config{"engine": "sglang", "prefix_caching": false}, qwenTarget, p, 0)
	if on.TTFT.Mean >= off.TTFT.Mean {
		t.Errorf("prefix caching on: mean TTFT %.1f ms, off: %.1f ms; want on < off", on.TTFT.Mean, off.TTFT.Mean)
	}
}
