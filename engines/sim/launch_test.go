package sim

import (
	"errors"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

func TestLaunchMaxModelLenSetsTheKVPlan(t *testing.T) {
	sm := New()
	// Qwen3-8B's 40,960-token context does not fit in the KV cache left by
	// a small memory fraction; planning for 4,096 tokens does.
	cfg := space.Config{"engine": "vllm", "mem_fraction": 0.25}
	_, err := sm.NewLive(cfg, qwenTarget, LiveOptions{})
	var f *engines.Failure
	if !errors.As(err, &f) || f.Class != engines.OOM {
		t.Fatalf("full context at mem_fraction 0.25: err = %v, want OOM", err)
	}
	l, err := sm.NewLive(cfg, qwenTarget, LiveOptions{Launch: Launch{MaxModelLen: 4096}})
	if err != nil {
		t.Fatalf("max_model_len 4096: %v", err)
	}
	if l.MaxLen() != 4096 {
		t.Errorf("MaxLen = %d, want 4096", l.MaxLen())
	}
	auto, err := sm.NewLive(cfg, qwenTarget, LiveOptions{Launch: Launch{MaxModelLen: -1}})
	if err != nil {
		t.Fatalf("max_model_len auto: %v", err)
	}
	if auto.MaxLen() != auto.KVTokens() || auto.MaxLen() >= 40960 {
		t.Errorf("auto MaxLen = %d, KV tokens %d: want what fits", auto.MaxLen(), auto.KVTokens())
	}
}

func TestLaunchRefusesALengthBeyondTheModel(t *testing.T) {
	_, err := New().NewLive(space.Config{"engine": "vllm"}, qwenTarget, LiveOptions{Launch: Launch{MaxModelLen: 100000}})
	var f *engines.Failure
	if !errors.As(err, &f) || f.Class != engines.InvalidConfig {
		t.Fatalf("err = %v, want InvalidConfig", err)
	}
}

func TestLaunchThroughputModeDoublesOnlyDefaults(t *testing.T) {
	sm := New()
	base, err := sm.NewLive(space.Config{"engine": "vllm"}, qwenTarget, LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tp, err := sm.NewLive(space.Config{"engine": "vllm"}, qwenTarget, LiveOptions{Launch: Launch{ThroughputMode: true}})
	if err != nil {
		t.Fatal(err)
	}
	if tp.MaxRunning() != 2*base.MaxRunning() {
		t.Errorf("throughput mode max running %d, want twice %d", tp.MaxRunning(), base.MaxRunning())
	}
	set, err := sm.NewLive(space.Config{"engine": "vllm", "max_running": int64(64)}, qwenTarget, LiveOptions{Launch: Launch{ThroughputMode: true}})
	if err != nil {
		t.Fatal(err)
	}
	if set.MaxRunning() != 64 {
		t.Errorf("explicit max_num_seqs changed to %d", set.MaxRunning())
	}
}
