package space

import (
	"context"
	"strings"
	"testing"
)

const withSetsSrc = `
[study]
name = "sets"

[target]
model = "m"
gpu = "H100"
gpus = 8

[[objectives]]
metric = "total_tps"
direction = "maximize"

[params.engine]
values = ["vllm", "sglang"]

[params.tp]
values = [1, 2, 4]

[params.mem_fraction]
low = 0.5
high = 0.9

[params.enable_dp_attention]
values = [false, true]

[[rules]]
expr = 'tp <= 2'
message = "tp above 2 does not fit"
`

// --set values take the declared knob's type; undeclared knobs are typed
// by their look; the result is on the baseline and checked by the rules.
func TestWithSets(t *testing.T) {
	sp, err := Parse(context.Background(), "sets.toml", withSetsSrc, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sp.WithSets([]string{"tp=2", "mem_fraction=0.8", "enable_dp_attention=true", "max_running=64", "custom=x", "ratio=1.5"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"tp": int64(2), "mem_fraction": 0.8, "enable_dp_attention": true, "max_running": int64(64), "custom": "x", "ratio": 1.5}
	for k, v := range want {
		if cfg[k] != v {
			t.Errorf("%s = %#v, want %#v", k, cfg[k], v)
		}
	}
	sp.Baseline = Config{"tp": int64(1), "engine": "sglang"}
	if cfg, err := sp.WithSets([]string{"tp=2"}); err != nil || cfg["engine"] != "sglang" || cfg["tp"] != int64(2) || sp.Baseline["tp"] != int64(1) {
		t.Errorf("on the baseline: %v, %v (baseline now %v)", cfg, err, sp.Baseline)
	}
	for sets, msg := range map[string]string{
		"tp":               `--set "tp": want knob=value`,
		"tp=two":           "--set tp: ",
		"tp=4":             "config breaks a rule of sets.toml: tp above 2 does not fit",
		"mem_fraction=NaN": "--set mem_fraction: ",
	} {
		if _, err := sp.WithSets([]string{sets}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("--set %s: %v, want %q", sets, err, msg)
		}
	}
}
