package engines

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// A value the target's release refuses on its own is named with the
// release; one it takes, or one refused only with other knobs, is not.
func TestRefusedValue(t *testing.T) {
	old := space.Target{Model: "m", Engines: map[string]space.EngineTarget{"vllm": {Version: "0.10.0"}, "sglang": {Version: "0.5.0"}}}
	cases := []struct {
		engine, knob string
		value        any
		want         string // "" = accepted
	}{
		{"vllm", KnobKVCacheDType, "nvfp4", "vllm 0.10.0: vllm does not accept \"nvfp4\""},
		{"vllm", KnobKVCacheDType, "fp8", ""},
		{"vllm", KnobKVCacheDType, "bf16", ""}, // an alias
		{"sglang", KnobKVCacheDType, "fp4_e2m1", "sglang 0.5.0: sglang does not accept \"fp4_e2m1\""},
		{"sglang", KnobKVCacheDType, "fp8_e4m3", ""},
		{"vllm", KnobMaxRunning, int64(64), ""},
		{"vllm", KnobEnableDPAttention, true, ""}, // not vllm's knob: not for this check
		// The PD layer (pd_vllm.go, pd_sglang.go): the gate, the backends,
		// and a side knob judged as its aggregated knob.
		{"vllm", KnobDisaggregation, Disaggregated, "vllm 0.10.0: vllm 0.10.0 does not accept \"pd\""},
		{"sglang", KnobDisaggregation, Disaggregated, ""},
		{"sglang", KnobDisaggregation, "none", ""},
		{"sglang", KnobKVTransferBackend, "lmcache", "sglang 0.5.0: sglang 0.5.0 does not accept \"lmcache\""},
		{"sglang", KnobKVTransferBackend, "nixl", ""},
		{"sglang", "decode_kv_cache_dtype", "fp4_e2m1", ""}, // not a side knob: the space says so
		{"sglang", sideKnob(RoleDecode, KnobMaxRunning), int64(8), ""},
	}
	for _, c := range cases {
		err := RefusedValue(old, c.engine, c.knob, c.value)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s=%v refused: %v", c.engine, c.knob, c.value, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("%s %s=%v: %v, want %q", c.engine, c.knob, c.value, err, c.want)
		}
	}
	if err := RefusedValue(space.Target{Model: "m"}, "vllm", KnobKVCacheDType, "nvfp4"); err != nil {
		t.Errorf("the newest vllm refused nvfp4: %v", err)
	}
}

// A searched knob that the target's extra_args also set is refused: the
// engine took extra_args' value (they come last) for every config
// (issue 48, fifth pass). A knob they leave alone is not.
func TestRefusedValueSetByExtraArgs(t *testing.T) {
	tg := space.Target{Model: "m", Engines: map[string]space.EngineTarget{"vllm": {ExtraArgs: []string{"--max-num-seqs", "64", "--seed", "1"}}}}
	if err := RefusedValue(tg, "vllm", KnobMaxRunning, int64(32)); err == nil || !strings.Contains(err.Error(), "extra_args") || !strings.Contains(err.Error(), "also sets max_running") {
		t.Errorf("max_running under --max-num-seqs in extra_args: %v", err)
	}
	if err := RefusedValue(tg, "vllm", KnobMemFraction, 0.9); err != nil {
		t.Errorf("mem_fraction: %v", err)
	}
}
