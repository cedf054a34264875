package sim

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// TestDumpSimulatedOutputs writes, to the file named by SIM_DUMP, every
// record, the duration, the summary and the step trace of a set of runs
// that covers the scheduler's paths (both Sixteenfold sizes, PD, a
// prefix-cache profile with conversations, staged load, SGLang, TRT-LLM,
// Ollama, DP attention, KV offload, max_duration): a pure performance
// change must leave the file byte-identical. Skipped without SIM_DUMP.
//
//	SIM_DUMP=/tmp/after.txt go test -run TestDumpSimulatedOutputs ./engines/sim
func TestDumpSimulatedOutputs(t *testing.T) {
	path := os.Getenv("SIM_DUMP")
	if path == "" {
		t.Skip("SIM_DUMP not set")
	}
	qcfg, qtg := qwen7B()
	qwen1 := space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}
	staged := bench.Profile{Name: "staged", Dataset: "random", InputLen: 2000, OutputLen: 300, RangeRatio: 0.5, Seed: 3,
		Stages: []bench.Stage{{Rate: 2, Duration: 30 * time.Second}, {Rate: 20, Duration: 30 * time.Second}, {Rate: 60, Duration: 20 * time.Second}}}
	tight := bench.Profile{Name: "tight", Dataset: "random", InputLen: 4096, OutputLen: 1024, RangeRatio: 0.3, NumPrompts: 200, MaxConcurrency: 160, Seed: 1}
	runs := []struct {
		name string
		cfg  space.Config
		tg   space.Target
		p    bench.Profile
	}{
		{"sixteenfold-1x", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, scaled(1000, 512)},
		{"sixteenfold-16x", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, scaled(16000, 8192)},
		{"sglang-16x", space.Config{"engine": "sglang", "tp": int64(8)}, glmTarget, scaled(4000, 2048)},
		{"trtllm", space.Config{"engine": "trtllm", "tp": int64(8)}, glmTarget, scaled(2000, 1024)},
		{"ollama", space.Config{"engine": "ollama"}, qwen1, scaled(200, 32)},
		{"vllm-staged", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, staged},
		{"sglang-staged", space.Config{"engine": "sglang", "tp": int64(8)}, glmTarget, staged},
		{"sglang-dpattn", space.Config{"engine": "sglang", "tp": int64(8), "dp": int64(4), "enable_dp_attention": true}, glmTarget, scaled(3000, 1536)},
		{"vllm-dp2", space.Config{"engine": "vllm", "tp": int64(8), "dp": int64(2)}, glm16Flat, scaled(3000, 1536)},
		{"prefix-multiturn", qcfg, qtg, sharedPrefixProfile(true, 8, 60*time.Second)},
		{"prefix-shared", qcfg, qtg, sharedPrefixProfile(false, 30, 60*time.Second)},
		{"prefix-sglang", space.Config{"engine": "sglang", "max_running": int64(128)}, qtg, sharedPrefixProfile(true, 12, 60*time.Second)},
		{"pd-sglang", glmPD(), glm16, scaled(2000, 1024)},
		{"pd-vllm", space.Config{"engine": "vllm", "disaggregation": "pd", "prefill_tp": int64(1), "decode_tp": int64(2)}, space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 3}, scaled(1000, 256)},
		{"vllm-tight", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(96)}, qwen1, tight},
		{"vllm-offload", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(96), "kv_offload_gb": 64.0}, qwen1, tight},
		{"sglang-tight", space.Config{"engine": "sglang", "mem_fraction": 0.3, "max_running": int64(96)}, qwen1, tight},
		{"trtllm-tight", space.Config{"engine": "trtllm", "mem_fraction": 0.3, "max_running": int64(96)}, qwen1, tight},
		{"maxdur", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, func() bench.Profile { p := scaled(4000, 2048); p.MaxDuration = 60 * time.Second; return p }()},
		{"vllm-tight-prefix-multiturn", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(256), "max_model_len": int64(8192)}, qwen1, func() bench.Profile {
			p := sharedPrefixProfile(true, 40, 40*time.Second)
			p.SharedPrefix.OutputLen = 800
			return p
		}()},
		{"vllm-tight-prefix-same", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(256), "max_model_len": int64(8192)}, qwen1, func() bench.Profile {
			p := sharedPrefixProfile(false, 60, 40*time.Second)
			p.SharedPrefix.OutputLen = 800
			return p
		}()},
		{"vllm-tight-trace-blocks", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(256), "max_model_len": int64(8192)}, qwen1, traceProfile(writeMooncake(t, 600, 30*time.Second, 3, 1))},
		{"vllm-tight-eagle", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(256), "max_model_len": int64(8192), "speculative_algorithm": "EAGLE3", "speculative_draft_model": "Tengyunw/qwen3_8b_eagle3", "speculative_num_steps": int64(3), "speculative_num_draft_tokens": int64(6)}, qwen1, scaled(1500, 1024)},
		{"vllm-tight-offload-big", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(512), "max_model_len": int64(8192), "kv_offload_gb": 8.0}, qwen1, scaled(2000, 1024)},
		{"trtllm-tight-big", space.Config{"engine": "trtllm", "mem_fraction": 0.25, "max_running": int64(512)}, qwen1, scaled(2000, 1024)},
		{"vllm-dp2-tight", space.Config{"engine": "vllm", "tp": int64(8), "dp": int64(2), "mem_fraction": 0.7, "max_model_len": int64(16384)}, glm16Flat, scaled(4000, 4096)},
		{"trace-hour-part", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, func() bench.Profile { p := traceHour(); p.NumPrompts = 3000; return p }()},
	}
	var all strings.Builder
	for _, r := range runs {
		var b strings.Builder
		var recs []bench.Record
		var dur time.Duration
		var tr *Trace
		var err error
		if r.cfg["disaggregation"] == "pd" { // no step trace for PD
			recs, dur, err = New().Evaluate(context.Background(), r.cfg, r.tg, r.p, 1)
		} else {
			recs, dur, tr, err = New().EvaluateTrace(context.Background(), r.cfg, r.tg, r.p, 1)
		}
		fmt.Fprintf(&b, "== %s dur=%v err=%v n=%d\n", r.name, dur, err, len(recs))
		for _, rec := range recs {
			fmt.Fprintf(&b, "%#v\n", rec)
		}
		if tr != nil {
			fmt.Fprintf(&b, "trace %#v\n", *tr)
		}
		if err == nil {
			fmt.Fprintf(&b, "summary %#v\n", bench.Summarize(recs, dur, bench.SummaryOptions{}))
		}
		// A second evaluation with another seed, without the trace.
		recs2, dur2, err2 := New().Evaluate(context.Background(), r.cfg, r.tg, r.p, 2)
		fmt.Fprintf(&b, "seed2 dur=%v err=%v recs=%x\n", dur2, err2, sha256.Sum256([]byte(fmt.Sprintf("%#v", recs2))))
		t.Logf("%s: dur %v err %v %x", r.name, dur, err, sha256.Sum256([]byte(b.String())))
		all.WriteString(b.String())
	}
	if err := os.WriteFile(path, []byte(all.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
