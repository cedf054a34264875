package sim

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// A simulator without gaps returns the same records but for their
// inter-token gaps, and the same duration.
func TestNoGapsChangesOnlyTheGaps(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "tp": int64(8), "max_running": int64(32)}
	p := small(64)
	want, wantDur, err := New().Evaluate(context.Background(), cfg, glmTarget, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	gaps := 0
	for i := range want {
		gaps += len(want[i].ITL)
		want[i].ITL = nil
	}
	if gaps == 0 {
		t.Fatal("the full simulation has no gaps: the check tells nothing")
	}
	got, dur, err := (&Simulator{Cards: DefaultCards(), NoGaps: true}).Evaluate(context.Background(), cfg, glmTarget, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if dur != wantDur || !reflect.DeepEqual(got, want) {
		t.Errorf("without gaps: %v and records equal %v; with: %v", dur, reflect.DeepEqual(got, want), wantDur)
	}
	if m := bench.Summarize(got, dur, bench.SummaryOptions{NoITL: true, NoPeaks: true}).Values(); m["total_tps"] <= 0 {
		t.Errorf("summary without gaps: %v", m)
	}
}

// Without gaps, finish advances plain decoders itself (issue 49): on
// every path a step takes — chunked prefill, SGLang's prefill steps, DP
// attention, preemption on a tight cache, speculative decoding, a shared
// prefix with conversations, TRT-LLM and Ollama — the records are the
// gapped run's without their gaps, and the duration is the same.
func TestNoGapsChangesOnlyTheGapsOnEveryPath(t *testing.T) {
	qcfg, qtg := qwen7B()
	qwen1 := space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}
	tight := bench.Profile{Name: "tight", Dataset: "random", InputLen: 4096, OutputLen: 512, RangeRatio: 0.3, NumPrompts: 120, MaxConcurrency: 96, Seed: 1}
	for _, c := range []struct {
		name string
		cfg  space.Config
		tg   space.Target
		p    bench.Profile
	}{
		{"vllm", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, scaled(300, 128)},
		{"sglang-dpattn", space.Config{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "moe_a2a_backend": "deepep"}, glmTarget, scaled(300, 128)},
		{"vllm-tight", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(96)}, qwen1, tight},
		{"sglang-tight", space.Config{"engine": "sglang", "mem_fraction": 0.3, "max_running": int64(96)}, qwen1, tight},
		{"trtllm-tight", space.Config{"engine": "trtllm", "mem_fraction": 0.3, "max_running": int64(96)}, qwen1, tight},
		{"vllm-eagle", space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(96), "max_model_len": int64(8192), "speculative_algorithm": "EAGLE3", "speculative_draft_model": "Tengyunw/qwen3_8b_eagle3", "speculative_num_steps": int64(3), "speculative_num_draft_tokens": int64(6)}, qwen1, tight},
		{"prefix-multiturn", qcfg, qtg, sharedPrefixProfile(true, 8, 20*time.Second)},
		{"ollama", space.Config{"engine": "ollama"}, qwen1, scaled(60, 8)},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, wantDur, err := New().Evaluate(context.Background(), c.cfg, c.tg, c.p, 3)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i].ITL = nil
			}
			got, dur, err := (&Simulator{Cards: DefaultCards(), NoGaps: true}).Evaluate(context.Background(), c.cfg, c.tg, c.p, 3)
			if err != nil {
				t.Fatal(err)
			}
			if dur != wantDur {
				t.Errorf("duration %v without gaps, %v with", dur, wantDur)
			}
			for i := range want {
				if i >= len(got) || !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("record %d without gaps differs:\n%+v\nwith gaps:\n%+v", i, got[min(i, len(got)-1)], want[i])
				}
			}
		})
	}
}
