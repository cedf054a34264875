package search

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestFeasibilityPredictions(t *testing.T) {
	sp := &space.Space{
		Target: space.Target{Engine: "sglang", GPUs: 8},
		Params: []space.Param{
			{Name: "tp", Kind: space.Categorical, Values: []any{int64(1), int64(2), int64(4)}},
			{Name: "mem_fraction", Kind: space.Float, Low: 0.7, High: 0.95},
			{Name: "chunked_prefill", Kind: space.Categorical, Values: []any{space.Default, int64(4096), int64(8192), int64(16384)}},
			{Name: "max_running", Kind: space.Int, Low: 8, High: 512},
			{Name: "cuda_graph_max_bs", Kind: space.Int, Low: 8, High: 512},
			{Name: "kv_cache_dtype", Kind: space.Categorical, Values: []any{"auto", "fp8_e4m3"}},
			{Name: "model_variant", Kind: space.Categorical, Values: []any{"BF16", "FP8"}},
			{Name: "attention_backend", Kind: space.Categorical, Values: []any{"fa3", "flashinfer"}},
			{Name: "speculative_algorithm", Kind: space.Categorical, Values: []any{"none", "EAGLE"}},
			{Name: "speculative_num_steps", Kind: space.Int, Low: 1, High: 5},
		},
	}
	base := space.Config{"tp": int64(2), "mem_fraction": 0.9, "chunked_prefill": int64(8192), "max_running": int64(128),
		"cuda_graph_max_bs": int64(256), "kv_cache_dtype": "auto", "model_variant": "FP8", "attention_backend": "fa3"}
	with := func(c space.Config, kv ...any) space.Config {
		d := c.Clone()
		for i := 0; i < len(kv); i += 2 {
			d[kv[i].(string)] = kv[i+1]
		}
		return d
	}
	oom := func(c space.Config) Observation { return Observation{Config: c, State: Infeasible, Class: "oom"} }
	ran := func(c space.Config) Observation {
		return Observation{Config: c, State: Complete, Value: 1, Values: []float64{1}}
	}
	invalid := func(c space.Config) Observation {
		return Observation{Config: c, State: Infeasible, Class: "invalid_config"}
	}
	spec := space.Config{"tp": int64(4), "mem_fraction": 0.85, "speculative_algorithm": "EAGLE", "speculative_num_steps": int64(3)}

	cases := []struct {
		name string
		told []Observation
		c    space.Config
		want bool
		// reason must contain this when predicted infeasible.
		reason string
	}{
		{"no evidence", nil, base, false, ""},
		{"the OOM config itself", []Observation{oom(base)}, base, true, "predicted oom"},
		{"higher mem_fraction", []Observation{oom(base)}, with(base, "mem_fraction", 0.93), true, "predicted oom"},
		{"lower mem_fraction", []Observation{oom(base)}, with(base, "mem_fraction", 0.85), false, ""},
		{"larger chunked prefill", []Observation{oom(base)}, with(base, "chunked_prefill", int64(16384)), true, "predicted oom"},
		{"smaller chunked prefill", []Observation{oom(base)}, with(base, "chunked_prefill", int64(4096)), false, ""},
		{"default chunked prefill is unknown", []Observation{oom(base)}, with(base, "chunked_prefill", space.Default), false, ""},
		{"higher max_running", []Observation{oom(base)}, with(base, "max_running", int64(256)), true, "predicted oom"},
		{"lower max_running", []Observation{oom(base)}, with(base, "max_running", int64(64)), false, ""},
		{"larger cuda graph batch", []Observation{oom(base)}, with(base, "cuda_graph_max_bs", int64(512)), true, "predicted oom"},
		{"smaller cuda graph batch", []Observation{oom(base)}, with(base, "cuda_graph_max_bs", int64(128)), false, ""},
		{"higher on two knobs", []Observation{oom(base)}, with(base, "max_running", int64(256), "mem_fraction", 0.95), true, "predicted oom"},
		{"higher on one, lower on another", []Observation{oom(base)}, with(base, "max_running", int64(256), "mem_fraction", 0.8), false, ""},
		{"fewer GPUs per replica", []Observation{oom(base)}, with(base, "tp", int64(1)), true, "predicted oom"},
		{"more GPUs per replica", []Observation{oom(base)}, with(base, "tp", int64(4)), false, ""},
		{"fp8 KV cache is narrower", []Observation{oom(base)}, with(base, "kv_cache_dtype", "fp8_e4m3"), false, ""},
		{"auto KV cache is wider than fp8", []Observation{oom(with(base, "kv_cache_dtype", "fp8_e4m3"))}, base, true, "predicted oom"},
		{"BF16 checkpoint is larger", []Observation{oom(base)}, with(base, "model_variant", "BF16"), true, "predicted oom"},
		{"other knob differs", []Observation{oom(base)}, with(base, "attention_backend", "flashinfer", "mem_fraction", 0.95), false, ""},
		{"knob only in the candidate", []Observation{oom(base)}, with(base, "speculative_algorithm", "none"), false, ""},
		{"the target engine fills in", []Observation{oom(base)}, with(base, "engine", "sglang", "mem_fraction", 0.95), true, "predicted oom"},
		{"another engine", []Observation{oom(base)}, with(base, "engine", "vllm", "mem_fraction", 0.95), false, ""},
		// A run that worked at 0.95 outweighs the OOM at 0.9 below it.
		{"feasible overrides", []Observation{oom(base), ran(with(base, "mem_fraction", 0.95))}, with(base, "mem_fraction", 0.92), false, ""},
		{"feasible elsewhere does not", []Observation{oom(base), ran(with(base, "mem_fraction", 0.8))}, with(base, "mem_fraction", 0.92), true, "predicted oom"},
		{"crash is no evidence", []Observation{{Config: base, State: Failed, Class: "crash"}}, base, false, ""},
		{"invalid: same discrete knobs", []Observation{invalid(spec)}, with(spec, "mem_fraction", 0.7), true, "predicted invalid_config"},
		{"invalid: an int knob differs", []Observation{invalid(spec)}, with(spec, "speculative_num_steps", int64(2)), false, ""},
		{"invalid: a categorical differs", []Observation{invalid(spec)}, with(spec, "tp", int64(2)), false, ""},
		{"invalid: a completed twin overrides", []Observation{invalid(spec), ran(with(spec, "mem_fraction", 0.9))}, with(spec, "mem_fraction", 0.7), false, ""},
	}
	for _, c := range cases {
		f := NewFeasibility(sp)
		for _, o := range c.told {
			f.Tell(o)
		}
		got, reason := f.Predict(c.c)
		if got != c.want {
			t.Errorf("%s: Predict = %v (%q), want %v", c.name, got, reason, c.want)
			continue
		}
		if !strings.Contains(reason, c.reason) || (!got && reason != "") {
			t.Errorf("%s: reason %q, want it to contain %q", c.name, reason, c.reason)
		}
	}
}
