package search

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestRefusedKnob(t *testing.T) {
	c := space.Config{"engine": "vllm", "moe_a2a_backend": "deepep", "ep": int64(8), "tp": int64(8)}
	cases := []struct {
		msg  string
		want string
	}{
		{"moe_a2a_backend is an SGLang option; vllm does not take it", "moe_a2a_backend"},
		{`vllm does not support knob "ep" (value 8)`, "ep"},
		{"knob ep: vllm derives the expert-parallel size as tp×dp = 8; ep 1 or 8, not 4", ""},
		{"RuntimeError: Not enough memory", ""},
		{"", ""},
	}
	for _, tc := range cases {
		got, ok := refusedKnob(tc.msg, c)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("refusedKnob(%q) = %q, %v; want %q", tc.msg, got, ok, tc.want)
		}
	}
}

// One refusal rules out the pair everywhere; other engines, other values
// and a pair the engine was seen to accept stay open.
func TestFeasibilityRulesOutARefusedPair(t *testing.T) {
	sp := &space.Space{Target: space.Target{Engine: "sglang", GPUs: 8}, Params: []space.Param{
		{Name: "engine", Kind: space.Categorical, Values: []any{"vllm", "sglang"}},
		{Name: "moe_a2a_backend", Kind: space.Categorical, Values: []any{"none", "deepep"}},
		{Name: "max_running", Kind: space.Int, Low: 8, High: 512},
		{Name: "mem_fraction", Kind: space.Float, Low: 0.7, High: 0.95},
	}}
	f := NewFeasibility(sp)
	f.Tell(Observation{Config: space.Config{"engine": "vllm", "moe_a2a_backend": "deepep", "max_running": int64(64), "mem_fraction": 0.8},
		State: Infeasible, Class: "invalid_config", Message: "moe_a2a_backend is an SGLang option; vllm does not take it"})
	cases := []struct {
		c    space.Config
		want bool
	}{
		{space.Config{"engine": "vllm", "moe_a2a_backend": "deepep", "max_running": int64(512), "mem_fraction": 0.7}, true},
		{space.Config{"engine": "vllm", "moe_a2a_backend": "none", "max_running": int64(64), "mem_fraction": 0.8}, false},
		{space.Config{"engine": "sglang", "moe_a2a_backend": "deepep", "max_running": int64(64), "mem_fraction": 0.8}, false},
	}
	for _, tc := range cases {
		bad, why := f.Predict(tc.c)
		if bad != tc.want {
			t.Errorf("Predict(%s) = %v (%s), want %v", tc.c.Summary(), bad, why, tc.want)
		}
		if bad && !strings.Contains(why, "vllm does not take moe_a2a_backend=deepep") {
			t.Errorf("reason %q", why)
		}
	}
	f.Tell(Observation{Config: space.Config{"engine": "vllm", "moe_a2a_backend": "deepep", "max_running": int64(8), "mem_fraction": 0.7},
		State: Complete, Value: 1, Values: []float64{1}})
	if bad, why := f.Predict(cases[0].c); bad {
		t.Errorf("a completed trial with the pair must reopen it; still predicted: %s", why)
	}
}
