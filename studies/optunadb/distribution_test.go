package optunadb

import (
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Each knob gets one distribution for the whole study, holding every
// value any trial or the baseline has, in Optuna's JSON.
func TestDistributions(t *testing.T) {
	sp := &space.Space{Params: []space.Param{
		{Name: "max_running", Kind: space.Int, Low: 16, High: 512, Log: true},
		{Name: "mem", Kind: space.Float, Low: 0.7, High: 0.9, Step: 0.05},
		{Name: "tp", Kind: space.Int, Low: 2, High: 8, Step: 2},
		{Name: "cp", Kind: space.Categorical, Values: []any{"default", int64(8192)}},
		{Name: "lr", Kind: space.Float, Low: 0.001, High: 0.1, Log: true},
		{Name: "gridded", Kind: space.Float, Low: 0.5, High: 1, Step: 0.25},
	}, Baseline: space.Config{"mem": 0.62, "gridded": 0.25}}
	trials := []store.Trial{
		{Config: space.Config{"max_running": int64(600), "tp": int64(3), "cp": int64(4096), "extra": "x"}},
		{Config: space.Config{"lr": 0.01, "seed": int64(7)}},
	}
	want := map[string]string{
		"max_running": `{"attributes":{"high":600,"log":true,"low":16,"step":1},"name":"IntDistribution"}`,
		"mem":         `{"attributes":{"high":0.9,"log":false,"low":0.62,"step":null},"name":"FloatDistribution"}`,
		"tp":          `{"attributes":{"high":8,"log":false,"low":2,"step":1},"name":"IntDistribution"}`,
		"cp":          `{"attributes":{"choices":["default",8192,4096]},"name":"CategoricalDistribution"}`,
		"lr":          `{"attributes":{"high":0.1,"log":true,"low":0.001,"step":null},"name":"FloatDistribution"}`,
		"gridded":     `{"attributes":{"high":1,"log":false,"low":0.25,"step":0.25},"name":"FloatDistribution"}`,
		"extra":       `{"attributes":{"choices":["x"]},"name":"CategoricalDistribution"}`,
		"seed":        `{"attributes":{"high":7,"log":false,"low":7,"step":1},"name":"IntDistribution"}`,
	}
	ds := distributions(sp, trials)
	for k, w := range want {
		if ds[k] == nil {
			t.Errorf("%s: no distribution", k)
			continue
		}
		if got := ds[k].JSON(); got != w {
			t.Errorf("%s:\n got %s\nwant %s", k, got, w)
		}
	}
	if len(ds) != len(want) {
		t.Errorf("%d distributions, want %d", len(ds), len(want))
	}
	for _, c := range []struct {
		k    string
		v    any
		want float64
	}{{"cp", int64(4096), 2}, {"cp", "default", 0}, {"mem", 0.75, 0.75}, {"tp", int64(3), 3}} {
		if got, ok := ds[c.k].internal(c.v); !ok || got != c.want {
			t.Errorf("%s=%v: internal %v %v, want %v", c.k, c.v, got, ok, c.want)
		}
	}
	if _, ok := ds["cp"].internal("other"); ok {
		t.Error("a value that is not a choice has no internal form")
	}
}

func TestStates(t *testing.T) {
	for s, want := range map[store.State]string{store.Running: "RUNNING", store.Complete: "COMPLETE", store.Pruned: "PRUNED",
		store.Infeasible: "FAIL", store.Failed: "FAIL", store.Interrupted: "FAIL"} {
		if got := state(s); got != want {
			t.Errorf("%s: %s, want %s", s, got, want)
		}
	}
}
