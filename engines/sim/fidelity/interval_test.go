package fidelity

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/servetune/servetune/engines/sim"
)

// Spreads are the median log error and the quantiles of the deviations
// from it; coverage counts the rows whose measured value falls within the
// stated interval, and the nested coverage builds each run's intervals
// from the other runs' errors.
func TestSpreadsAndCoverage(t *testing.T) {
	// Ten runs, one stage each, simulated at e^r × measured.
	errs := []float64{-0.10, -0.05, -0.02, 0, 0.01, 0.02, 0.03, 0.05, 0.08, 0.30}
	rep := &Report{}
	for i, r := range errs {
		rep.Runs = append(rep.Runs, RunReport{ID: string(rune('a' + i)), Stages: []Row{{Stage: "stage_0",
			Real: map[string]float64{"e2e_mean": 100}, Sim: map[string]float64{"e2e_mean": 100 * math.Exp(r), "itl_mean": 5}}}})
	}
	var rows []Row
	for _, rr := range rep.Runs {
		rows = append(rows, rr.Stages...)
	}
	sp := Spreads(rows, len(errs))["e2e_mean"]
	if math.Abs(sp.Bias-0.015) > 1e-12 {
		t.Errorf("bias %v, want the median 0.015", sp.Bias)
	}
	// |r − 0.015| sorted: .005 .005 .015 .015 .035 .035 .065 .065 .115 .285;
	// conformal over 10 runs: the ⌈10·0.8·11/10⌉ = 9th, and for 95% the
	// ⌈10.45⌉ = 11th, past the end: the largest.
	if math.Abs(sp.H80-0.115) > 1e-12 || math.Abs(sp.H95-0.285) > 1e-12 {
		t.Errorf("h80 %v h95 %v, want 0.115 and 0.285", sp.H80, sp.H95)
	}
	u := &sim.Uncertainty{Spreads: map[string]sim.Spread{"e2e_mean": {Bias: 0, H80: 0.06, H95: 0.2}}}
	us := make([]*sim.Uncertainty, len(errs))
	for i := range us {
		us[i] = u
	}
	rep.AddIntervals(us)
	c := rep.Coverage
	// |r| ≤ 0.06: 7 of 10 inside the 80% interval; ≤ 0.2: 9 of 10.
	if c.Rows["e2e_mean"] != 10 || c.Stated80["e2e_mean"] != 70 || c.Stated95["e2e_mean"] != 90 {
		t.Errorf("coverage %+v, want 10 rows, 70%% and 90%%", c)
	}
	if _, ok := c.Rows["itl_mean"]; ok {
		t.Error("a metric without a measurement has no coverage")
	}
	if _, ok := rep.Runs[0].Stages[0].Interval["itl_mean"]; ok {
		t.Error("a metric without a spread has no interval")
	}
	if n := c.Nested80["e2e_mean"]; !(n >= 0 && n <= 100) {
		t.Errorf("nested coverage %v", n)
	}
	if h80, h95 := c.NestedH80["e2e_mean"], c.NestedH95["e2e_mean"]; !(h80 > 0 && h80 <= h95) {
		t.Errorf("nested median half-widths %v, %v: want 0 < 80%% ≤ 95%%", h80, h95)
	}
}

// The built-in spreads are those of the stored leave-one-out report of
// the calibration set (engines/sim/testdata/loo-report.json, written by
// `servetune sim check --loo --json`; docs/benchmarks.md, issue 45).
func TestLOOSpreadsReproduce(t *testing.T) {
	b, err := os.ReadFile("../testdata/loo-report.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "leave-one-out" {
		t.Fatalf("stored report is %q, want leave-one-out", rep.Mode)
	}
	got := Spreads(rep.stageRowsExcept(-1))
	want := sim.LOOSpreads()
	if len(got) != len(metricNames) || len(want) != len(got) {
		t.Fatalf("spreads for %d metrics, built-in %d, want %d", len(got), len(want), len(metricNames))
	}
	for m, g := range got {
		w := want[m]
		if math.Abs(g.Bias-w.Bias) > 5e-5 || math.Abs(g.H80-w.H80) > 5e-5 || math.Abs(g.H95-w.H95) > 5e-5 {
			t.Errorf("%s: report gives %+v, built-in %+v", m, g, w)
		}
	}
}

// The built-in intervals cover about their nominal share of the stored
// leave-one-out report's stage rows, and so do the nested ones — each
// run's intervals built from the other runs' errors only, the honest
// figure docs/benchmarks.md reports (go test -run LOOCoverage -v prints
// it): issue 45 asks nominal 80% intervals to cover 75–85% of held-out
// rows, checked here on the headline metrics (21 rows: 16 or 17 of them).
func TestLOOCoverage(t *testing.T) {
	b, err := os.ReadFile("../testdata/loo-report.json")
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	u := &sim.Uncertainty{Spreads: sim.LOOSpreads()} // calibration runs: vLLM, H100, TP ≤ 4, no extrapolation
	us := make([]*sim.Uncertainty, len(rep.Runs))
	for i := range us {
		us[i] = u
	}
	rep.AddIntervals(us)
	c := rep.Coverage
	for _, m := range metricNames {
		t.Logf("%s: %d rows, stated 80%% %.0f%%, 95%% %.0f%%; nested 80%% %.0f%% (median half-width %.3f), 95%% %.0f%% (%.3f)",
			m, c.Rows[m], c.Stated80[m], c.Stated95[m], c.Nested80[m], c.NestedH80[m], c.Nested95[m], c.NestedH95[m])
		if s := c.Stated80[m]; s < 75 || s > 91 {
			t.Errorf("%s: stated 80%% intervals cover %.0f%% of the rows they were taken from", m, s)
		}
		if s := c.Nested95[m]; s < 85 {
			t.Errorf("%s: nested 95%% intervals cover %.0f%%, want ≥ 85%%", m, s)
		}
	}
	for _, m := range []string{"e2e_mean", "ttft_mean", "itl_mean"} {
		if s := c.Nested80[m]; s < 75 || s > 85 {
			t.Errorf("%s: nested 80%% intervals cover %.0f%%, want 75–85%%", m, s)
		}
	}
}

// The conformal quantile's finite-sample correction counts the
// exchangeable units (runs), not the scores: 20 rows from 10 runs need a
// higher order statistic than 20 rows from 20 runs.
func TestConformalCountsUnits(t *testing.T) {
	scores := make([]float64, 20)
	for i := range scores {
		scores[i] = float64(i + 1) // 1..20
	}
	for _, tc := range []struct {
		p     float64
		units int
		want  float64
	}{
		{0.8, 20, 17},  // ⌈20·0.8·21/20⌉ = ⌈16.8⌉
		{0.8, 10, 18},  // ⌈20·0.8·1.1⌉ = ⌈17.6⌉
		{0.8, 0, 17},   // units unknown: each score one
		{0.95, 10, 20}, // past the end: the largest
		{0.5, 4, 13},   // ⌈20·0.5·1.25⌉ = ⌈12.5⌉
	} {
		if got := conformal(slices.Clone(scores), tc.p, tc.units); got != tc.want {
			t.Errorf("conformal(p=%v, units=%d) = %v, want %v", tc.p, tc.units, got, tc.want)
		}
	}
}
