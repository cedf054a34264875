package studies

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// A recommendation on 8 GPUs against a baseline on 2 says so, and gives
// each throughput's change per GPU beside the total's (issue 50: "+532.7%"
// read as a better config).
func TestRecommendationAcrossGPUCountsIsPerGPU(t *testing.T) {
	sp := &space.Space{Objectives: []space.Objective{{Metric: "total_tps", Direction: space.Maximize}, {Metric: "mean_tpot_ms", Direction: space.Minimize}},
		Target: space.Target{Engine: "vllm", GPUs: 8}, Profiles: []bench.Profile{{Name: "p"}}}
	trial := func(n int, origin string, tp int64, tps, tpot float64) store.Trial {
		return store.Trial{Number: n, Origin: origin, State: store.Complete, Config: space.Config{"engine": "vllm", "tp": tp},
			Metrics: map[string]map[string]float64{"p": {"total_tps": tps, "mean_tpot_ms": tpot}}}
	}
	trials := []store.Trial{trial(1, "baseline", 2, 4000, 50), trial(2, "sampler", 8, 25308, 40)}
	r := BuildReport(sp, trials, nil)
	if len(r.Recommendations) == 0 {
		t.Fatal("no recommendation")
	}
	rec := r.Recommendations[0]
	if rec.GPUs != 8 || rec.BaselineGPUs != 2 {
		t.Fatalf("GPUs %d vs baseline %d, want 8 vs 2", rec.GPUs, rec.BaselineGPUs)
	}
	ms := rec.Profiles[0].Metrics
	if ms[0].PerGPUVsBaseline == nil || *ms[0].VsBaseline < 532 || *ms[0].PerGPUVsBaseline < 58.1 || *ms[0].PerGPUVsBaseline > 58.3 {
		t.Errorf("total_tps change %v, per GPU %v; want +532.7%% and +58.2%%", ms[0].VsBaseline, ms[0].PerGPUVsBaseline)
	}
	if ms[1].PerGPUVsBaseline != nil {
		t.Error("a latency got a per-GPU change")
	}
	var b strings.Builder
	if err := r.Text(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"On 8 GPUs against the baseline's 2", "total_tps 25308.00 (+532.7%; per GPU +58.2%)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	// The same GPU count: nothing to say.
	trials[0].Config["tp"] = int64(8)
	if rec := BuildReport(sp, trials, nil).Recommendations[0]; rec.GPUNote() != "" || rec.Profiles[0].Metrics[0].PerGPUVsBaseline != nil {
		t.Errorf("same GPU count: note %q", rec.GPUNote())
	}
}
