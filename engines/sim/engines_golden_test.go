package sim

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// TestEngineModelsGolden pins what each engine's model decides across the
// behaviours that differ by engine — defaults, the KV pool, refusals and
// their log lines, DP attention, DeepEP, speculative decoding, launch
// options, disaggregated pools, the step model — so moving an engine's
// behaviour between files changes no simulated number
// (go test -run TestEngineModelsGolden -update rewrites it after a change
// that means to).
func TestEngineModelsGolden(t *testing.T) {
	got := engineModelsReport(t)
	golden := filepath.Join("testdata", "engines.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("simulated outcomes differ from %s at line %d (-update rewrites):\n got %s\nwant %s", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("simulated outcomes differ from %s: %d lines, want %d (-update rewrites)", golden, len(gl), len(wl))
	}
}

func engineModelsReport(t *testing.T) string {
	var b strings.Builder
	sm := New()
	targets := []space.Target{
		{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1},
		{Model: "Qwen/Qwen3-8B", GPU: "A100-80GB", GPUs: 4},
		{Model: "Qwen3.5-35B-A3B", GPU: "L40S", GPUs: 8},
		{Model: "zai-org/GLM-5.2-FP8", GPU: "H200", GPUs: 8},
	}
	cfgs := []space.Config{
		{}, {"tp": int64(4), "dp": int64(2), "enable_dp_attention": true}, {"tp": int64(3), "dp": int64(2), "enable_dp_attention": true},
		{"dp": int64(2)}, {"max_running": int64(8), "chunked_prefill": int64(4)}, {"max_running": int64(64), "dp": int64(2)},
		{"mem_fraction": 0.3}, {"mem_fraction": 0.97}, {"max_model_len": int64(-1)}, {"max_model_len": int64(100000000)},
		{"tp": int64(8), "moe_a2a_backend": "deepep"},
		{"speculative_algorithm": "EAGLE3", "speculative_draft_model": "Tengyunw/qwen3_8b_eagle3", "speculative_num_steps": int64(3), "speculative_num_draft_tokens": int64(6)},
		{"disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1)},
	}
	p := bench.Profile{Name: "small", Dataset: "random", InputLen: 1000, OutputLen: 100, RangeRatio: 0.5, NumPrompts: 32, MaxConcurrency: 8, Seed: 7}
	for _, eng := range []string{engines.VLLM, engines.SGLang, engines.TRTLLM, engines.Ollama} {
		for ti, tg := range targets {
			tg.Engine = eng
			for ci, c := range cfgs {
				c = onEngine(c, eng)
				fmt.Fprintf(&b, "%s t%d c%d gpus=%d startup=%v\n", eng, ti, ci, sm.GPUs(c, tg), sm.StartupTime(c, tg))
				if s, err := sm.resolve(c, tg); err == nil {
					plan, err := s.plan()
					fmt.Fprintf(&b, "  running=%d chunk=%d graphs=%d frac=%g kv=%d %s\n", s.maxRunning, s.chunk, s.graphBS, s.memFrac, plan.kvTokens, failureText(err))
					thr := *s
					_ = (Launch{ThroughputMode: true}).apply(&thr, c.Has("max_running"), c.Has("chunked_prefill"))
					fmt.Fprintf(&b, "  throughput mode: running=%d chunk=%d\n", thr.maxRunning, thr.chunk)
				}
				recs, dur, err := sm.Evaluate(context.Background(), c, tg, p, 3)
				sum := sha256.Sum256([]byte(fmt.Sprintf("%#v", recs)))
				fmt.Fprintf(&b, "  records %x in %v %s\n", sum[:8], dur, failureText(err))
			}
		}
	}
	return b.String()
}

func onEngine(c space.Config, engine string) space.Config {
	out := space.Config{"engine": engine}
	for k, v := range c {
		out[k] = v
	}
	return out
}

// failureText is a refusal with the engine's lines.
func failureText(err error) string {
	if f, ok := engines.AsFailure(err); ok {
		return fmt.Sprintf("%s: %s %q", f.Class, f.Message, f.Lines)
	}
	if err != nil {
		return err.Error()
	}
	return "ok"
}
