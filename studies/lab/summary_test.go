package lab

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func ptr(x float64) *float64 { return &x }

func eqPtr(a, b *float64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return math.Abs(*a-*b) < 1e-9
}

func show(x *float64) string {
	if x == nil {
		return "absent"
	}
	return fmt.Sprintf("%g", *x)
}

func TestGapStatIsMedianAndWorstSeed(t *testing.T) {
	inf := math.Inf(1)
	for _, c := range []struct {
		name          string
		gaps          []float64
		median, worst *float64
		noBest        int
	}{
		{"odd count", []float64{0.1, 0.02, 0.3}, ptr(0.1), ptr(0.3), 0},
		{"even count averages the middle two", []float64{0, 0.1, 0.2, 0.4}, ptr(0.15), ptr(0.4), 0},
		{"a seed with no best is the worst", []float64{0.1, inf, 0.02}, ptr(0.1), nil, 1},
		{"the median lands on no best", []float64{inf, inf, 0.02}, nil, nil, 2},
		{"no seeds", nil, nil, nil, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := gapStat(10, c.gaps)
			if g.Trials != 10 || !eqPtr(g.Median, c.median) || !eqPtr(g.Worst, c.worst) || g.NoBest != c.noBest {
				t.Errorf("gapStat(%v) = median %s worst %s no-best %d, want %s %s %d", c.gaps, show(g.Median), show(g.Worst), g.NoBest, show(c.median), show(c.worst), c.noBest)
			}
		})
	}
}

func TestGapAtCountsNoReportedBestAsInfinite(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name     string
		best     []float64
		k        int
		opt      float64
		minimize bool
		want     float64
	}{
		{"maximise", []float64{nan, 80, 90}, 3, 100, false, 0.1},
		{"minimise", []float64{2, 1.5}, 2, 1, true, 0.5},
		{"nothing reported yet", []float64{nan, nan, 90}, 2, 100, false, math.Inf(1)},
		{"a short study reports its last", []float64{nan, 95}, 40, 100, false, 0.05},
		{"no trials at all", nil, 10, 100, false, math.Inf(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := gapAt(c.best, c.k, c.opt, c.minimize)
			if !(got == c.want || math.Abs(got-c.want) < 1e-9) {
				t.Errorf("gapAt = %v, want %v", got, c.want)
			}
		})
	}
}

func TestHoursToWithinFivePercent(t *testing.T) {
	nan := math.NaN()
	hours := []float64{1, 2, 3, 4}
	for _, c := range []struct {
		name     string
		best     []float64
		opt      float64
		minimize bool
		want     float64
	}{
		{"maximise reaches at the third trial", []float64{nan, 90, 95, 99}, 100, false, 3},
		{"exactly 5% counts", []float64{95, 95, 95, 95}, 100, false, 1},
		{"minimise", []float64{2, 1.2, 1.04, 1}, 1, true, 3},
		{"never within 5%", []float64{nan, 50, 80, 94}, 100, false, math.Inf(1)},
		{"no complete trial", []float64{nan, nan, nan, nan}, 100, false, math.Inf(1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := hoursToWithin(Run{Best: c.best, GPUHours: hours}, c.opt, within, c.minimize); got != c.want {
				t.Errorf("hoursToWithin = %v, want %v", got, c.want)
			}
		})
	}
}

func TestHeadlineOverSeeds(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	curve := func(vals ...float64) []float64 { return vals }
	// Each seed's reality has its own optimum; seed 3 never completes a
	// trial before its fourth.
	runs := []Run{
		{Seed: 1, Optimum: 100, Best: curve(90, 96, 96, 99), GPUHours: curve(1, 2, 3, 4), HV: curve(0.5, 0.9, 0.9, 0.92), ToExpert: 2},
		{Seed: 2, Optimum: 200, Best: curve(100, 150, 190, 200), GPUHours: curve(1, 3, 5, 7), HV: curve(0.1, 0.2, 0.6, 0.7), ToExpert: inf},
		{Seed: 3, Optimum: 50, Best: curve(nan, nan, nan, 30), GPUHours: curve(2, 4, 6, 8), HV: curve(0, 0, 0, 0.4), ToExpert: inf},
	}
	h := headline("motpe+prior", runs, 0, false, 0)
	if h.Seeds != 3 || len(h.Gaps) != len(headlineMarks()) {
		t.Fatalf("headline %+v", h)
	}
	// At 10 trials (the curves stop at 4: each reports its last) the gaps
	// are 1%, 0% and 40%.
	g := h.Gaps[0]
	if g.Trials != 10 || !eqPtr(g.Median, ptr(0.01)) || !eqPtr(g.Worst, ptr(0.4)) || g.NoBest != 0 {
		t.Errorf("gap@10 median %s worst %s no-best %d", show(g.Median), show(g.Worst), g.NoBest)
	}
	// Seed 1 is within 5% after 2 GPU-h, seed 2 after 5, seed 3 never:
	// the median is seed 2's, and one seed is counted as never.
	if !eqPtr(h.ToWithin, ptr(5)) || h.Never != 1 {
		t.Errorf("to within 5%%: %s, never %d", show(h.ToWithin), h.Never)
	}
	if !eqPtr(h.HV40, ptr(0.7)) || !eqPtr(h.HV40Worst, ptr(0.4)) {
		t.Errorf("HV@40 %s worst %s", show(h.HV40), show(h.HV40Worst))
	}
	// Two of three seeds never reach the expert's config: the median is a
	// never, so the figure is absent.
	if h.ToExpert != nil {
		t.Errorf("to expert %s, want absent", show(h.ToExpert))
	}
	one := headline("x", []Run{{Best: curve(nan, 1), GPUHours: curve(1, 2), ToExpert: nan}}, 2, false, 0)
	if short := headline("x", runs, 0, false, 25); len(short.Gaps) != 2 || short.Gaps[1].Trials != 20 || short.HV40 != nil {
		t.Errorf("a 25-trial study reports gaps at %+v, want 10 and 20 only and no HV@40", short.Gaps)
	}
	if one.HV40 != nil || one.HV40Worst != nil || one.ToExpert != nil || one.ToWithin != nil || one.Never != 1 {
		t.Errorf("one objective, no expert, never within 5%%: %+v", one)
	}
}

// The JSON carries the headline with undefined figures absent, and the
// table says why they are.
func TestHeadlineRendersWithoutNaN(t *testing.T) {
	nan := math.NaN()
	r := &Result{Objectives: []space.Objective{{Metric: "total_tps", Direction: space.Maximize}}, Truth: Truth{Optimum: 100, Points: 8, Feasible: 5},
		Runs: []Run{{Sampler: "random", Seed: 1, Best: []float64{nan, 50}, GPUHours: []float64{1, 2}, ToExpert: nan}}}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Headline []map[string]any `json:"headline"`
	}
	if err := json.Unmarshal(b, &got); err != nil || len(got.Headline) != 1 {
		t.Fatalf("%v: %s", err, b)
	}
	if _, ok := got.Headline[0]["gpu_hours_to_within_5pct"]; ok || got.Headline[0]["never_within_5pct"] != 1.0 {
		t.Errorf("headline %v: never reached must be absent and counted", got.Headline[0])
	}
	var md bytes.Buffer
	r.Markdown(&md)
	for _, want := range []string{"over 8 grid points, 5 feasible", "| random | 50.0% / 50.0% |", "never (1 of 1)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, md.String())
		}
	}
}
