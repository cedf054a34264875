package sim

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// Moving pure requests as blocks (makeRoom, admitBlock) is a shortcut
// only: under the admit/preempt churn of vLLM at high concurrency, with
// speculative decoding, KV offload, two DP ranks, staged load and a
// max_duration cut, every record and duration is the same with it off,
// and the blocks were used.
func TestBlockPreemptionChangesNothing(t *testing.T) {
	qwen1 := space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}
	tight := space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(256), "max_model_len": int64(8192)}
	staged := bench.Profile{Name: "staged", Dataset: "random", InputLen: 2000, OutputLen: 300, RangeRatio: 0.5, Seed: 3,
		Stages: []bench.Stage{{Rate: 20, Duration: 20 * time.Second}, {Rate: 60, Duration: 10 * time.Second}}}
	runs := []struct {
		name string
		cfg  space.Config
		tg   space.Target
		p    bench.Profile
	}{
		{"vllm tp8 2000 at 1024", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, scaled(2000, 1024)},
		{"vllm dp2", space.Config{"engine": "vllm", "tp": int64(8), "dp": int64(2), "mem_fraction": 0.7, "max_model_len": int64(16384)}, glm16Flat, scaled(1500, 1024)},
		{"eagle", with(tight, "speculative_algorithm", "EAGLE3", "speculative_draft_model", "Tengyunw/qwen3_8b_eagle3", "speculative_num_steps", int64(3), "speculative_num_draft_tokens", int64(6)), qwen1, scaled(600, 512)},
		{"offload", with(tight, "kv_offload_gb", 8.0), qwen1, scaled(600, 512)},
		{"trtllm", space.Config{"engine": "trtllm", "mem_fraction": 0.3, "max_running": int64(256)}, qwen1, scaled(600, 512)},
		{"staged", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, staged},
		{"max_duration", space.Config{"engine": "vllm", "tp": int64(8)}, glmTarget, func() bench.Profile { p := scaled(2000, 1024); p.MaxDuration = 30 * time.Second; return p }()},
	}
	out := func(on bool, cfg space.Config, tg space.Target, p bench.Profile) string {
		blockPreemption = on
		defer func() { blockPreemption = true }()
		recs, dur, err := New().Evaluate(context.Background(), cfg, tg, p, 1)
		return fmt.Sprintf("%v %v %#v", dur, err, recs)
	}
	blockAdmissions = 0
	for _, r := range runs {
		if on, off := out(true, r.cfg, r.tg, r.p), out(false, r.cfg, r.tg, r.p); on != off {
			t.Errorf("%s: the records differ with blocks on and off", r.name)
		}
	}
	if blockAdmissions < 1000 {
		t.Errorf("%d requests admitted in blocks: the runs no longer preempt as they did", blockAdmissions)
	}
	t.Logf("%d requests admitted in blocks", blockAdmissions)
}
