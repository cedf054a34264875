package lab

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

func TestNoisyDividesThroughputAndMultipliesLatency(t *testing.T) {
	got := noisy(map[string]float64{"total_tps": 100, "goodput_rps": 4, "mean_tpot_ms": 10, "mean_e2e_s": 1.5, "completed": 5}, 2)
	want := map[string]float64{"total_tps": 50, "goodput_rps": 2, "mean_tpot_ms": 20, "mean_e2e_s": 3, "completed": 5}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if f := noiseFactor(1, 0); f != 1 {
		t.Errorf("no noise gives factor %v", f)
	}
	// The factor is log-normal with the given CV and mean 1.
	sum, sumsq := 0.0, 0.0
	for i := int64(0); i < 20000; i++ {
		f := noiseFactor(i, 0.05)
		sum += f
		sumsq += f * f
	}
	mean := sum / 20000
	cv := math.Sqrt(sumsq/20000-mean*mean) / mean
	if math.Abs(mean-1) > 0.002 || math.Abs(cv-0.05) > 0.003 {
		t.Errorf("noise factor mean %.4f cv %.4f, want 1 and 0.05", mean, cv)
	}
}

func TestSummarizeReducesRunsToMedians(t *testing.T) {
	r := &Result{
		Objectives: []space.Objective{{Metric: "total_tps", Direction: space.Maximize}},
		Truth:      Truth{Optimum: 100},
	}
	curve := func(vals ...float64) []float64 { return vals }
	for seed, top := range []float64{80, 90, 70} {
		best := make([]float64, 30)
		for i := range best {
			best[i] = top * float64(i+1) / 30
		}
		r.Runs = append(r.Runs,
			Run{Sampler: "greedy", Seed: seed, Best: curve(top/2, top/2), GPUHours: curve(1, 2)},
			Run{Sampler: "x", Seed: seed, Best: best, GPUHours: best, Pruned: 2, FalsePrunes: 1})
	}
	rows := r.Summarize()
	if len(rows) != 2 || rows[1].Sampler != "x" {
		t.Fatalf("rows %+v", rows)
	}
	x := rows[1]
	// Median final best 80 → gap 20%; it reaches greedy's final (top/2)
	// halfway through its 30 trials.
	if x.Best[2] != 80 || math.Abs(x.Gap30-0.2) > 1e-12 || x.ToGreedy != 15 || x.Trials != 30 {
		t.Errorf("row %+v", x)
	}
	if x.Pruned != 6 || x.FalsePrunes != 3 {
		t.Errorf("prunes %d (%d), want totals 6 (3)", x.Pruned, x.FalsePrunes)
	}
	if got := reach([]float64{5, 4, 3}, 3.5, true); got != 3 {
		t.Errorf("reach minimise = %v", got)
	}
	if got := reach([]float64{1, 2}, 3, false); !math.IsInf(got, 1) {
		t.Errorf("never reached = %v", got)
	}
}

// A short evaluation on the Qwen3 landscape: studies run, curves have one
// point per counted trial, GPU time only grows, and best values are real
// measurements of the landscape.
func TestEvaluateOnTheQwen3Landscape(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	sp.Objectives = sp.Objectives[:1]
	o := NewOracle(sp)
	res, err := Evaluate(context.Background(), o, &Truth{Optimum: 0.77}, sp, Options{
		Landscape: "qwen3", Samplers: []string{"random", "motpe"}, Seeds: 2, Trials: 8, NoiseCV: 0.05, Dir: t.TempDir(), Log: zerolog.Nop()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 4 {
		t.Fatalf("%d runs, want 2 samplers × 2 seeds", len(res.Runs))
	}
	for _, run := range res.Runs {
		if len(run.Best) != 8 || len(run.GPUHours) != 8 {
			t.Fatalf("%s seed %d: %d points, want 8", run.Sampler, run.Seed, len(run.Best))
		}
		for i := 1; i < len(run.GPUHours); i++ {
			if run.GPUHours[i] < run.GPUHours[i-1] {
				t.Errorf("GPU time fell: %v", run.GPUHours)
			}
		}
		if b := run.Best[7]; !(b >= 0.77 && b < 5) {
			t.Errorf("%s seed %d final best %v is not a plausible latency", run.Sampler, run.Seed, b)
		}
	}
}

// A short prior run against a reality that is not the prior: the prior
// oracle and the truth's differ, the runs are labelled, and the prior's
// first proposal (after the baseline) is already a good config.
func TestPriorRunsAgainstADifferentReality(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	sp.Objectives = sp.Objectives[:1]
	cards := sim.DefaultCards()
	if err := cards.Add(strings.NewReader("[[gpu]]\nname = \"H100\"\nmem_gib = 79.6\nhbm_tbs = 2.4\nbf16_tflops = 1200\nfp8_tflops = 2400\nnvlink_gbs = 300\n")); err != nil {
		t.Fatal(err)
	}
	truthO, priorO := NewOracleOn(sp, cards), NewOracle(sp)
	res, err := Evaluate(context.Background(), truthO, &Truth{Optimum: 0.77}, sp, Options{
		Landscape: "qwen3", Samplers: []string{"motpe"}, Seeds: 2, Trials: 6, NoiseCV: 0.05, Dir: t.TempDir(), Log: zerolog.Nop(), Prior: priorO})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range res.Runs {
		if run.Sampler != "motpe+prior" || len(run.Best) != 6 {
			t.Fatalf("run %s with %d points", run.Sampler, len(run.Best))
		}
	}
	c := space.Config{"engine": "vllm"}
	if a, b := trueValue(context.Background(), truthO, c, sp.Objectives[0]), trueValue(context.Background(), priorO, c, sp.Objectives[0]); a == b {
		t.Errorf("reality and prior agree (%v): the reality cards were not used", a)
	}
}

func TestToTargetIsTheGPUTimeAtFirstReach(t *testing.T) {
	max := space.Objective{Metric: "total_tps", Direction: space.Maximize}
	r := Run{Best: []float64{math.NaN(), 5, 9, 12}, GPUHours: []float64{1, 2, 3, 4}}
	if got := toTarget(r, 9, max); got != 3 {
		t.Errorf("reach 9 at %v GPU-h, want 3", got)
	}
	if got := toTarget(r, 13, max); !math.IsInf(got, 1) {
		t.Errorf("never reached = %v", got)
	}
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	if e := sp.WithTargetEngine(Expert("glm52")); sp.Check(e) != nil {
		t.Errorf("the expert config breaks a rule: %v", sp.Check(e))
	}
}

func TestPerturbStaysInTheFamilyAndFollowsTheSeed(t *testing.T) {
	base := sim.DefaultCards()
	a, b, a2 := Perturb(base, 1), Perturb(base, 2), Perturb(base, 1)
	if a.GPUs[0].HBMTBs != a2.GPUs[0].HBMTBs || a.GPUs[0].HBMTBs == b.GPUs[0].HBMTBs {
		t.Fatal("the same seed must give the same reality, another seed another")
	}
	for i, g := range a.GPUs {
		o := base.GPUs[i]
		if r := g.HBMTBs / o.HBMTBs; r < 1-effRange || r > 1+effRange {
			t.Errorf("%s bandwidth ×%.2f outside ±%.0f%%", g.Name, r, effRange*100)
		}
		if r := g.NVLinkGBs / o.NVLinkGBs; o.NVLinkGBs > 0 && (r < 1-commRange || r > 1+commRange) {
			t.Errorf("%s NVLink ×%.2f outside ±%.0f%%", g.Name, r, commRange*100)
		}
		if r := g.MemGiB / o.MemGiB; r < 1-memRange || r > 1+memRange {
			t.Errorf("%s memory ×%.2f outside ±%.0f%%", g.Name, r, memRange*100)
		}
	}
	for i, d := range a.Drafts {
		if diff := d.Acceptance - base.Drafts[i].Acceptance; math.Abs(diff) > acceptRange+1e-9 && d.Acceptance != 0.05 && d.Acceptance != 0.95 {
			t.Errorf("%s acceptance moved %.2f", d.Name, diff)
		}
	}
	if base.GPUs[0].HBMTBs != sim.DefaultCards().GPUs[0].HBMTBs {
		t.Error("Perturb changed the cards it was given")
	}
}
