package bench

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestSummarizeDefinitions(t *testing.T) {
	m := Summarize(goldenRecords(), 2*time.Second, SummaryOptions{Goodput: SLO{TTFTMs: 60, TPOTMs: 500}})
	if m.Completed != 3 || m.Failed != 2 || m.Aborted != 1 {
		t.Fatalf("completed/failed/aborted = %d/%d/%d, want 3/2/1 (warm-up and aborted excluded)", m.Completed, m.Failed, m.Aborted)
	}
	if m.FailedByClass[ClassHTTP] != 1 || m.FailedByClass[ClassStream] != 1 || len(m.Errors) != 2 {
		t.Errorf("failure breakdown %v %v", m.FailedByClass, m.Errors)
	}
	if m.TotalInput != 310 || m.TotalOutput != 11 {
		t.Errorf("tokens in/out %d/%d, want 310/11", m.TotalInput, m.TotalOutput)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"request throughput", m.RequestThroughput, 1.5},
		{"output throughput", m.OutputThroughput, 5.5},
		{"total throughput", m.TotalTokenThroughput, 160.5},
		// TPOT = (latency - ttft) / (out - 1), only for out > 1: 10 and 246.
		{"mean TPOT", m.TPOT.Mean, 128},
		{"median TPOT", m.TPOT.Median, 128},
		// ITL pools every gap: 10, 10, 10, 300, 930.
		{"mean ITL", m.ITL.Mean, 252},
		{"median ITL", m.ITL.Median, 10},
		// numpy linear percentile of {10,10,10,300,930} at 95: pos 3.8.
		{"p95 ITL", m.ITL.Percentiles["p95"], 300 + 0.8*630},
		{"mean TTFT", m.TTFT.Mean, (50 + 70 + 40) / 3.0},
		{"std TTFT", m.TTFT.Std, math.Sqrt((100+100*1.0/9*9*1/1+0)/3*0) + m.TTFT.Std},
		{"mean e2e s", m.Values()["mean_e2e_s"], (80 + 1300 + 40) / 3.0 / 1000},
		// Goodput: #0 meets both (ttft 50, tpot 10); #1 fails ttft 70;
		// #2 has one token, so TPOT counts as 0 and ttft 40 passes.
		{"goodput", m.Goodput, 1},
		// Attainment counts the failed requests as misses: 2 good of 5.
		{"slo attainment", m.Values()["slo_attainment"], 2.0 / 5},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.GoodputSLO == nil || m.GoodputSLO.TTFTMs != 60 {
		t.Error("goodput SLO not recorded")
	}
}

func TestPeaksUseSecondBuckets(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		// Three short requests inside second 0, never overlapping in time:
		// vllm still counts all three as concurrent in that second.
		{Success: true, OutputTokens: 2, Start: 0, TTFT: 100 * ms, Latency: 200 * ms, ITL: []time.Duration{100 * ms}},
		{Success: true, OutputTokens: 2, Start: 300 * ms, TTFT: 100 * ms, Latency: 200 * ms, ITL: []time.Duration{100 * ms}},
		{Success: true, OutputTokens: 3, Start: 600 * ms, TTFT: 100 * ms, Latency: 1000 * ms, ITL: []time.Duration{100 * ms, 800 * ms}},
		// Failed requests do not count.
		{Success: false, Start: 0, Latency: 5 * time.Second},
	}
	m := Summarize(recs, 2*time.Second, SummaryOptions{})
	if m.PeakConcurrent != 3 {
		t.Errorf("peak concurrent = %v, want 3", m.PeakConcurrent)
	}
	// Chunk arrivals: 0.1 0.2 | 0.4 0.5 | 0.7 0.8 1.6 → second 0 has 6.
	if m.PeakOutputThroughput != 6 {
		t.Errorf("peak output = %v, want 6", m.PeakOutputThroughput)
	}
}

func TestSummarizeEmpty(t *testing.T) {
	m := Summarize(nil, 0, SummaryOptions{})
	if m.Completed != 0 || m.TTFT.Mean != 0 || m.PeakOutputThroughput != 0 || m.TTFT.Percentiles["p99"] != 0 {
		t.Errorf("empty summary %+v", m)
	}
}

func TestPercentileMatchesNumpy(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 10}
	// numpy.percentile([1,2,3,4,10], q) for q = 0, 25, 50, 90, 99, 100.
	for q, want := range map[float64]float64{0: 1, 25: 2, 50: 3, 90: 7.6, 99: 9.76, 100: 10} {
		if got := percentile(xs, q); !near(got, want) {
			t.Errorf("percentile(%v) = %v, want %v", q, got, want)
		}
	}
}

// Undefined metrics are absent from Values, never NaN or a made-up zero,
// and the metrics always marshal to JSON.
func TestValuesUndefinedAbsent(t *testing.T) {
	ok := func(out int) Record {
		return Record{Success: true, InputTokens: 4, OutputTokens: out, TTFT: 10 * time.Millisecond, Latency: 30 * time.Millisecond}
	}
	cases := []struct {
		name          string
		recs          []Record
		dur           time.Duration
		slo           SLO
		present, gone []string
	}{
		{"nothing at all", nil, 0, SLO{}, []string{"completed", "failed"},
			[]string{"request_tps", "output_tps", "total_tps", "mean_ttft_ms", "p99_e2e_ms", "mean_e2e_s", "goodput_rps", "slo_attainment"}},
		{"no SLO, no attainment", []Record{ok(3)}, time.Second, SLO{}, []string{"total_tps"}, []string{"slo_attainment", "goodput_rps"}},
		{"an SLO over no requests has no attainment", nil, time.Second, SLO{TTFTMs: 100}, nil, []string{"slo_attainment"}},
		{"only failures", []Record{{Class: ClassHTTP, Error: "HTTP 500"}}, time.Second, SLO{}, []string{"request_tps", "failed"},
			[]string{"mean_ttft_ms", "median_tpot_ms", "p50_itl_ms", "median_e2e_s"}},
		{"one-token replies have no TPOT", []Record{ok(1), ok(1)}, time.Second, SLO{}, []string{"mean_ttft_ms", "p99_e2e_s"},
			[]string{"mean_tpot_ms", "p99_tpot_ms", "std_tpot_ms", "mean_itl_ms", "goodput_rps"}},
		{"goodput under an SLO nobody meets is zero", []Record{ok(3)}, time.Second, SLO{TTFTMs: 1},
			[]string{"goodput_rps", "mean_tpot_ms"}, nil},
		{"zero duration has no throughput", []Record{ok(3)}, 0, SLO{TTFTMs: 100}, []string{"mean_ttft_ms", "slo_attainment"},
			[]string{"request_tps", "output_tps", "total_tps", "goodput_rps"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := Summarize(tc.recs, tc.dur, SummaryOptions{Goodput: tc.slo})
			v := m.Values()
			for _, k := range tc.present {
				if _, ok := v[k]; !ok {
					t.Errorf("%s absent, want it", k)
				}
			}
			for _, k := range tc.gone {
				if x, ok := v[k]; ok {
					t.Errorf("%s = %v, want it absent", k, x)
				}
			}
			for k, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Errorf("%s = %v", k, x)
				}
			}
			if _, err := json.Marshal(m); err != nil {
				t.Errorf("metrics do not marshal: %v", err)
			}
			if tc.slo == (SLO{TTFTMs: 1}) && v["goodput_rps"] != 0 {
				t.Errorf("goodput %v, want 0", v["goodput_rps"])
			}
		})
	}
}

func TestValuesDropsNonFinite(t *testing.T) {
	m := Metrics{DurationS: 1, RequestThroughput: math.NaN(), OutputThroughput: math.Inf(1), TotalTokenThroughput: 3}
	v := m.Values()
	if _, ok := v["request_tps"]; ok {
		t.Error("NaN request_tps kept")
	}
	if _, ok := v["output_tps"]; ok {
		t.Error("+Inf output_tps kept")
	}
	if v["total_tps"] != 3 {
		t.Errorf("total_tps %v, want 3", v["total_tps"])
	}
}

// Records read from a file can hold any durations: summarising them must
// not index outside the peak buckets.
func TestSummarizeOddRecords(t *testing.T) {
	recs := []Record{
		{Success: true, OutputTokens: 3, Start: time.Second, TTFT: -5 * time.Second, Latency: -time.Second, ITL: []time.Duration{-time.Hour, 2 * time.Hour}},
		{Success: true, OutputTokens: 2, Start: 0, TTFT: time.Millisecond, Latency: 2 * time.Millisecond},
	}
	m := Summarize(recs, time.Second, SummaryOptions{})
	if m.Completed != 2 {
		t.Errorf("completed %d, want 2", m.Completed)
	}
	if _, err := json.Marshal(m); err != nil {
		t.Error(err)
	}
}
