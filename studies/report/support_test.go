package report

import (
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// "What the prior thinks" marks a knob value whose prediction no measured
// trial but the baseline (or none at all) backs.
func TestViewsMarkPredictionsNoTrialSupports(t *testing.T) {
	sp := &space.Space{Objectives: []space.Objective{{Metric: "total_tps", Direction: space.Maximize}}}
	best := 27767.0
	region := func(v string) store.Region {
		return store.Region{Knob: "engine", Value: v, Best: []*float64{&best}}
	}
	pt := func(n int, origin, engine string) Point {
		return Point{Trial: n, State: store.Complete, Origin: origin, Config: space.Config{"engine": engine}, Values: []float64{1000}}
	}
	pts := []Point{pt(1, "baseline", "vllm"), pt(2, "sampler", "sglang"), pt(3, "prior", "sglang")}
	got := map[string]string{}
	for _, v := range views(sp, []store.Region{region("vllm"), region("sglang"), region("trtllm")}, pts) {
		got[v.Value] = v.Support
	}
	want := map[string]string{"vllm": "only the baseline", "sglang": "", "trtllm": "no trial"}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("engine = %s: support %q, want %q", k, got[k], w)
		}
	}
}
