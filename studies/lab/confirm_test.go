package lab

import (
	"context"
	"math"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

func TestCheckConfirmUsesTheReportsStatedUncertainty(t *testing.T) {
	for _, c := range []struct {
		name            string
		truth, best     float64
		said            reportedOf
		minimize        bool
		wantGap         float64
		within, covered bool
	}{
		{"the best measured is reported at its truth", 100, 100, reportedOf{100, 0.06, 3}, false, 0, true, true},
		{"a confirmed report inside its interval", 95, 100, reportedOf{98, 0.06, 3}, false, 0.05, true, true},
		{"a confirmed report outside it", 93, 100, reportedOf{98, 0.06, 3}, false, 0.07, false, true},
		{"its value read high beyond its interval", 95, 100, reportedOf{105, 0.06, 3}, false, 0.05, true, false},
		{"a wider stated interval tolerates more", 91, 100, reportedOf{100, 0.1, 1}, false, 0.09, true, true},
		{"minimising: a higher latency is the gap", 1.1, 1.0, reportedOf{1.08, 0.06, 3}, true, 0.1, false, true},
		{"reported truly better than the best measured cannot happen, but is no gap", 101, 100, reportedOf{101, 0.1, 1}, false, 0, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := checkConfirm(c.truth, c.best, c.said, 0.05, true, c.minimize)
			if math.Abs(got.Gap-c.wantGap) > 1e-9 || got.Tolerance != c.said.tolerance || got.Within != c.within || got.Covered != c.covered {
				t.Errorf("checkConfirm = gap %.4f tol %.4f within %v covered %v, want %.4f %.4f %v %v",
					got.Gap, got.Tolerance, got.Within, got.Covered, c.wantGap, c.said.tolerance, c.within, c.covered)
			}
		})
	}
}

func TestReporterRanksConfigsByTheirMeans(t *testing.T) {
	a, b := space.Config{"x": int64(1)}, space.Config{"x": int64(2)}
	max := space.Objective{Metric: "m", Direction: space.Maximize}
	r := newReporter(max)
	if r.best() != nil {
		t.Fatal("best before any measurement")
	}
	r.add(a, 110) // a lucky first measurement
	r.add(b, 105)
	if got := r.best(); got.Key() != a.Key() {
		t.Fatalf("best = %v, want the higher single measurement", got)
	}
	r.add(a, 90) // confirmation: a's mean falls to 100
	if got := r.best(); got.Key() != b.Key() {
		t.Fatalf("best after confirming a = %v, want b (mean 105 over a's 100)", got)
	}
	r.add(b, math.NaN())
	if got := r.best(); got.Key() != b.Key() {
		t.Errorf("a NaN measurement moved the best to %v", got)
	}
	min := newReporter(space.Objective{Metric: "m", Direction: space.Minimize})
	min.add(a, 2)
	min.add(b, 1)
	if got := min.best(); got.Key() != b.Key() {
		t.Errorf("minimising: best = %v, want b", got)
	}
}

// The lab reads a disputed config as the report does (studies.
// TestDisputedLeaderIsSettledByAThirdMeasurement): by the median of its
// three measurements, which its outlier does not move.
func TestReporterReadsADisputedConfigByItsMedian(t *testing.T) {
	a, b := space.Config{"x": int64(1)}, space.Config{"x": int64(2)}
	r := newReporter(space.Objective{Metric: "m", Direction: space.Maximize})
	for _, v := range []float64{60000, 41000, 42000} { // mean 47667, median 42000
		r.add(a, v)
	}
	r.add(b, 45000)
	if got := r.best(); got.Key() != b.Key() {
		t.Errorf("best = %v, want b (45000 over a's median 42000)", got)
	}
}

// The lab's per-trial reading of the report pools near-twins as the report
// does (studies.TestReportPoolsNearTwins): a lucky single does not outrank
// the knob value its similar configs' repeats favour.
func TestReporterPoolsNearTwins(t *testing.T) {
	cfg := func(mr int64, mf float64) space.Config { return space.Config{"max_running": mr, "mem_fraction": mf} }
	r := newReporter(space.Objective{Metric: "m", Direction: space.Maximize})
	for _, m := range []struct {
		c space.Config
		v []float64
	}{
		{cfg(8, 0.8), []float64{30000}},
		{cfg(128, 0.9), []float64{57000, 54000}},
		{cfg(128, 0.8), []float64{56500, 53500}},
		{cfg(64, 0.9), []float64{54500, 51500}},
		{cfg(64, 0.95), []float64{54700, 51700}},
		{cfg(128, 0.95), []float64{54800}},
		{cfg(64, 0.8), []float64{57000}}, // the best mean, measured once
	} {
		for _, v := range m.v {
			r.add(m.c, v)
		}
	}
	if got := r.best(); got["max_running"] != int64(128) {
		t.Errorf("best = %v, want a max_running 128 config over the lucky single", got)
	}
}

func TestConfirmStatsCountsTheSeedsWithinNoise(t *testing.T) {
	runs := []Run{
		{Confirm: &ConfirmCheck{Gap: 0, Within: true}},
		{Confirm: &ConfirmCheck{Gap: 0.08, Within: false, Covered: true}},
		{Confirm: &ConfirmCheck{Gap: 0.02, Within: true}},
		{}, // reported nothing: not a seed of the check
	}
	within, covered, seeds, g := confirmStats(runs)
	if within != 2 || covered != 1 || seeds != 3 || !eqPtr(g.Median, ptr(0.02)) || !eqPtr(g.Worst, ptr(0.08)) {
		t.Errorf("confirmStats = %d (covered %d) of %d, gap %s / %s; want 2 (1) of 3, 0.02 / 0.08", within, covered, seeds, show(g.Median), show(g.Worst))
	}
}

// A short study with confirmation: the lab's curve ends on the config the
// study's report names, confirmed by more than one measurement unless the
// last trial found it, and the best measured config is at least as good.
func TestEvaluateChecksTheConfirmedReport(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	sp.Objectives = sp.Objectives[:1]
	res, err := Evaluate(context.Background(), NewOracle(sp), &Truth{Optimum: 0.77}, sp, Options{
		Landscape: "qwen3", Samplers: []string{"random"}, Seeds: 2, Trials: 12, NoiseCV: 0.05, Confirm: 0.25, Dir: t.TempDir(), Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	confirmed := 0
	for _, run := range res.Runs {
		c := run.Confirm
		if c == nil {
			t.Fatalf("seed %d: no confirmation check", run.Seed)
		}
		// A config first measured on the study's last trial has no trial
		// left to confirm it, and if it leads beyond the noise the report
		// names it (measured once, and says so); any other pick is
		// confirmed.
		lastFound := len(run.Best) >= 2 && run.Best[len(run.Best)-2] != last(run.Best)
		if c.Measurements >= 2 {
			confirmed++
		}
		if (c.Measurements < 2 && !lastFound) || !c.NoiseMeasured {
			t.Errorf("seed %d: reported best measured %d times (noise measured %v, found on the last trial %v), want a confirmed one",
				run.Seed, c.Measurements, c.NoiseMeasured, lastFound)
		}
		if !(c.Value > 0) || !(c.Tolerance > 0) {
			t.Errorf("seed %d: the report states %v ± %v of its pick, want a value and an interval", run.Seed, c.Value, c.Tolerance)
		}
		if c.BestMeasured > c.Reported+1e-12 || last(run.Best) != c.Reported {
			t.Errorf("seed %d: reported %v, best measured %v, curve ends %v", run.Seed, c.Reported, c.BestMeasured, last(run.Best))
		}
	}
	if confirmed == 0 {
		t.Error("no seed's report names a confirmed config")
	}
}
