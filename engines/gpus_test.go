package engines

import (
	"testing"

	"github.com/servetune/servetune/space"
)

func TestGPUs(t *testing.T) {
	sglangDP := space.Config{"engine": "sglang", KnobTP: int64(8), KnobDP: int64(8), KnobEnableDPAttention: true}
	cases := []struct {
		name   string
		cfg    space.Config
		target space.Target
		want   int
	}{
		{"vllm tp×dp", space.Config{"engine": "vllm", KnobTP: int64(4), KnobDP: int64(2)}, space.Target{}, 8},
		{"sglang DP attention inside the TP group", sglangDP, space.Target{}, 8},
		{"sglang DP without attention", space.Config{"engine": "sglang", KnobTP: int64(2), KnobDP: int64(2)}, space.Target{}, 4},
		{"trtllm has no dp", space.Config{"engine": "trtllm", KnobTP: int64(4), KnobDP: int64(2)}, space.Target{}, 4},
		{"no parallelism knobs", space.Config{"engine": "vllm"}, space.Target{}, 1},
		{"gpus_per_trial overrides", sglangDP, space.Target{GPUsPerTrial: "tp * 2"}, 16},
		{"gpus_per_trial that does not apply", space.Config{"engine": "vllm", KnobTP: int64(4)}, space.Target{GPUsPerTrial: "tp * pp"}, 4},
	}
	for _, c := range cases {
		if got := GPUs(c.cfg, c.target); got != c.want {
			t.Errorf("%s: GPUs = %d, want %d", c.name, got, c.want)
		}
	}
}
