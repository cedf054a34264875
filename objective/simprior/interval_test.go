package simprior_test

import (
	"context"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/lab"
)

// Each objective metric maps to the simulator's interval metric that
// measures it; throughputs and metrics the calibration set never measured
// map to none (their interval is absent).
func TestIntervalMetricMapping(t *testing.T) {
	for _, c := range []struct {
		objective, want string
	}{
		{"mean_ttft_ms", "ttft_mean"},
		{"p90_ttft_ms", "ttft_p90"},
		{"p99_ttft_ms", "ttft_p99"},
		{"mean_e2e_ms", "e2e_mean"},
		{"p90_e2e_ms", "e2e_p90"},
		{"p99_e2e_s", "e2e_p99"},
		{"mean_e2e_s", "e2e_mean"},
		{"mean_itl_ms", "itl_mean"},
		{"mean_tpot_ms", "itl_mean"},
		{"stage1_mean_ttft_ms", "ttft_mean"},
		{"stage12_p90_e2e_ms", "e2e_p90"},
		{"total_tps", ""},
		{"output_tps", ""},
		{"request_tps", ""},
		{"goodput_rps", ""},
		{"p95_ttft_ms", ""}, // no spread measured for p95
		{"median_itl_ms", ""},
		{"p99_itl_ms", ""},
		{"mean_ttft_msx", ""},
		{"xstage0_mean_ttft_ms", ""},
	} {
		got, ok := simprior.IntervalMetric(c.objective)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("%s: %q %v, want %q", c.objective, got, ok, c.want)
		}
	}
	for _, m := range []string{"ttft_mean", "ttft_p90", "ttft_p99", "e2e_mean", "e2e_p90", "e2e_p99", "itl_mean"} {
		if _, ok := sim.LOOSpreads()[m]; !ok {
			t.Errorf("the mapping targets %s, which the simulator states no spread for", m)
		}
	}
}

// The simulator prior states an interval around each latency objective it
// predicts, containing the prediction's bias-corrected centre and nested
// (80% inside 95%), and none for a throughput objective.
func TestPriorIntervalsAroundPredictedLatencies(t *testing.T) {
	sp, err := lab.Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	s := *sp
	s.Objectives = []space.Objective{{Metric: "mean_ttft_ms", Direction: space.Minimize}, {Metric: "total_tps", Direction: space.Maximize}, {Metric: "mean_tpot_ms", Direction: space.Minimize}}
	p := simprior.New(&s, sim.DefaultCards())
	c := lab.Expert("glm52")
	vals, ok := p.Predict(context.Background(), c)
	if !ok {
		t.Fatalf("the expert config predicted infeasible")
	}
	ivs := search.PriorIntervals(p, c, vals)
	if len(ivs) != 3 || ivs[1] != nil {
		t.Fatalf("intervals %v: want one per objective, none for total_tps", ivs)
	}
	for _, i := range []int{0, 2} {
		iv := ivs[i]
		if iv == nil {
			t.Fatalf("%s: no interval", s.Objectives[i].Metric)
		}
		if !(0 < iv.Lo95 && iv.Lo95 < iv.Lo80 && iv.Lo80 < iv.Hi80 && iv.Hi80 < iv.Hi95) {
			t.Errorf("%s: interval %+v not nested", s.Objectives[i].Metric, *iv)
		}
		if !(iv.Lo80 < vals[i] && vals[i] < iv.Hi80) {
			t.Errorf("%s: 80%% interval %+v misses the prediction %v", s.Objectives[i].Metric, *iv, vals[i])
		}
	}
	if got := search.PriorIntervals(p, c, nil); got != nil {
		t.Errorf("intervals without a prediction: %v", got)
	}
}
