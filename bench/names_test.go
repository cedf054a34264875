package bench

import (
	"testing"
	"time"
)

// The did-you-mean candidates are names a run really produces: every one
// of them is a key of Values on a run with an SLO (but the metrics only a
// rate search or a quality profile measures), and KnownMetric accepts it.
func TestMetricNamesAreProduced(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		{Index: 0, Start: 0, TTFT: 10 * ms, Latency: 100 * ms, ITL: []time.Duration{40 * ms, 50 * ms}, OutputTokens: 3, Success: true},
		{Index: 1, Start: 50 * ms, TTFT: 20 * ms, Latency: 200 * ms, ITL: []time.Duration{90 * ms, 90 * ms}, OutputTokens: 3, Success: true},
	}
	v := WithPerGPU(Summarize(recs, time.Second, SummaryOptions{Goodput: SLO{TTFTMs: 100}}).Values(), 2)
	elsewhere := map[string]bool{"max_rate_under_slo": true, "max_rate_under_slo_per_gpu": true, "answer_accuracy": true, "baseline_agreement": true,
		// package cost, from a price file (objective.Measure adds them)
		MetricUSDPerHour: true, MetricUSDPerMTokOutput: true, MetricUSDPerMTokTotal: true,
		// package cost, from target.traffic_rps and max_rate_under_slo
		MetricReplicas: true, MetricGPUsTotal: true}
	for _, n := range MetricNames() {
		if !KnownMetric(n) {
			t.Errorf("KnownMetric(%q) = false", n)
		}
		if _, ok := v[n]; !ok && !elsewhere[n] {
			t.Errorf("candidate %q is not produced", n)
		}
	}
	if got := MetricCandidates("stage3_x")[0]; got != "stage3_"+MetricNames()[0] {
		t.Errorf("stage candidate %q keeps no prefix", got)
	}
}

func TestMetricProblem(t *testing.T) {
	staged := Profile{Stages: []Stage{{Rate: 1, Duration: time.Second}}, Percentiles: []float64{99.9}}
	for _, tc := range []struct {
		p    Profile
		name string
		ok   bool
	}{
		{staged, "stage0_total_tps", true},
		{staged, "stage1_total_tps", false},
		{staged, "p99.9_ttft_ms", true},
		{staged, "stage0_p99.9_e2e_s", true},
		{staged, "p97_ttft_ms", false},
		{Profile{}, "stage0_total_tps", false},
		{Profile{}, "p50_ttft_ms", true},
		{Profile{}, "p050_ttft_ms", false},
		{Profile{}, "total_tps", true},
	} {
		if got := tc.p.MetricProblem(tc.name); (got == "") != tc.ok {
			t.Errorf("%d stages: MetricProblem(%q) = %q", len(tc.p.Stages), tc.name, got)
		}
	}
}

// Per GPU is each throughput (and each stage's) over the trial's GPUs;
// latencies have no per-GPU figure.
func TestWithPerGPU(t *testing.T) {
	m := map[string]float64{"total_tps": 8000, "stage1_goodput_rps": 6, "p99_ttft_ms": 300}
	got := WithPerGPU(m, 4)
	want := map[string]float64{"total_tps": 8000, "stage1_goodput_rps": 6, "p99_ttft_ms": 300, "total_tps_per_gpu": 2000, "stage1_goodput_rps_per_gpu": 1.5}
	if len(got) != len(want) {
		t.Fatalf("WithPerGPU = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if len(m) != 3 {
		t.Error("WithPerGPU changed its argument")
	}
	if total, ok := PerGPUOf("stage1_goodput_rps_per_gpu"); !ok || total != "stage1_goodput_rps" {
		t.Errorf("PerGPUOf = %q, %v", total, ok)
	}
	if _, ok := PerGPUOf("p99_ttft_ms_per_gpu"); ok || KnownMetric("p99_ttft_ms_per_gpu") {
		t.Error("a latency has no per-GPU figure")
	}
}
