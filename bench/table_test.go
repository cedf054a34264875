package bench

import (
	"maps"
	"slices"
	"testing"
	"time"
)

// fullValues is every metric bench itself produces for one two-stage run
// with an SLO, a non-default percentile and scored replies: Values,
// Quality and WithPerGPU together.
func fullValues(t *testing.T) map[string]float64 {
	t.Helper()
	var recs []Record
	for i := range 8 {
		recs = append(recs, Record{Index: i, Success: i != 3, InputTokens: 100, OutputTokens: 4,
			Start: time.Duration(i) * 100 * time.Millisecond, TTFT: 20 * time.Millisecond, Latency: 80 * time.Millisecond,
			ITL: []time.Duration{20 * time.Millisecond, 20 * time.Millisecond, 20 * time.Millisecond}})
	}
	m := Summarize(recs, time.Second, SummaryOptions{Percentiles: []float64{99.9}, StageStarts: []int{0, 4}, Goodput: SLO{TTFTMs: 50}})
	v := m.Values()
	maps.Copy(v, Quality(qualityPlan(t), []string{"4", "Paris", "hi"}, []string{"4", "Lyon", "hi"}))
	v[MetricMaxRateUnderSLO] = 2 // so its per-GPU figure is made too (the rate search adds it)
	return WithPerGPU(v, 2)
}

// TestMetricTableIsWhatBenchProduces fails when bench produces a metric
// the table lacks, or the table says bench produces one it does not: the
// table is the one list every other package reads names from.
func TestMetricTableIsWhatBenchProduces(t *testing.T) {
	v := fullValues(t)
	for _, name := range slices.Sorted(maps.Keys(v)) {
		m, ok := MetricOf(name)
		switch {
		case !ok:
			t.Errorf("bench produces %s, which the metric table lacks", name)
		case m.Producer != ByBench && BaseMetric(name) != MetricMaxRateUnderSLO:
			t.Errorf("bench produces %s, which the table says %s produces", name, m.Producer)
		case m.Unit == "" || m.Doc == "":
			t.Errorf("%s has no unit or description in the table", name)
		}
	}
	for _, name := range MetricNames() {
		m, _ := MetricOf(name)
		if m.Producer != ByBench {
			continue
		}
		for _, n := range []string{name, "stage0_" + name, "stage1_" + name} {
			if _, ok := v[n]; !ok && !onlyWholeRun(name) {
				t.Errorf("the table says bench produces %s, but a full run does not", n)
			}
		}
	}
	if _, ok := v["p99.9_ttft_ms"]; !ok {
		t.Error("a requested percentile is not produced")
	}
}

// onlyWholeRun are bench's metrics a stage does not report by itself:
// the replies are scored over the whole run, and the rate search (whose
// per-GPU figure bench makes) searches the whole run's rate.
func onlyWholeRun(name string) bool {
	if total, ok := PerGPUOf(name); ok {
		name = total
	}
	return name == AnswerAccuracy || name == BaselineAgreement || name == MetricMaxRateUnderSLO
}

// The rows other packages produce carry their producer, a unit and a
// direction; a stage or per-GPU name keeps its base's unit and direction.
func TestMetricOf(t *testing.T) {
	for _, tc := range []struct {
		name, unit, producer string
		better               Direction
		needs                Need
	}{
		{"output_tps", "tok/s", ByBench, Higher, NeedNothing},
		{"stage1_output_tps_per_gpu", "tok/s/GPU", ByBench, Higher, NeedNothing},
		{"p99.9_tpot_ms", "ms", ByBench, Lower, NeedNothing},
		{"median_e2e_s", "s", ByBench, Lower, NeedNothing},
		{"goodput_rps", "req/s", ByBench, Higher, NeedSLO},
		{"max_rate_under_slo", "req/s", ByObjective, Higher, NeedSearchRate},
		{"max_rate_under_slo_per_gpu", "req/s/GPU", ByBench, Higher, NeedSearchRate},
		{"usd_per_mtok_output", "USD/Mtok", ByCost, Lower, NeedPrices},
		{"gpus_total", "GPUs", ByCost, Lower, NeedTrafficRPS},
		{"duration_s", "s", ByBench, Neither, NeedNothing},
	} {
		m, ok := MetricOf(tc.name)
		if !ok || m.Name != tc.name || m.Unit != tc.unit || m.Producer != tc.producer || m.Better != tc.better || m.Needs != tc.needs {
			t.Errorf("MetricOf(%s) = %+v, %v; want unit %s, producer %s, better %d, needs %d", tc.name, m, ok, tc.unit, tc.producer, tc.better, tc.needs)
		}
	}
	for _, bad := range []string{"p99_tfft_ms", "stage1_stage0_total_tps", "completed_per_gpu", "std_e2e_s", ""} {
		if m, ok := MetricOf(bad); ok {
			t.Errorf("MetricOf(%q) = %+v, want none", bad, m)
		}
	}
}
