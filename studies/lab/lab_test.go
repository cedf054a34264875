package lab

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

func TestNoisyDividesThroughputAndMultipliesLatency(t *testing.T) {
	got := noisy(map[string]float64{"total_tps": 100, "goodput_rps": 4, "mean_tpot_ms": 10, "mean_e2e_s": 1.5, "completed": 5}, func(string) float64 { return 2 })
	want := map[string]float64{"total_tps": 50, "goodput_rps": 2, "mean_tpot_ms": 20, "mean_e2e_s": 3, "completed": 5}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if f := trialNoise(1, 3, 0)("total_tps"); f != 1 {
		t.Errorf("no noise gives factor %v", f)
	}
}

// The noise has the requested spread, heavier tails than a log-normal,
// per-metric parts, a slow drift, and is the same for the same seed.
func TestNoiseIsPerMetricHeavyTailedAndDrifts(t *testing.T) {
	const n, cv = 20000, 0.05
	var logs []float64
	differ := 0
	for i := range n {
		f := trialNoise(int64(i), 0, cv) // trial 0: no drift yet
		a, b := f("total_tps"), f("mean_tpot_ms")
		logs = append(logs, math.Log(a))
		if a != b {
			differ++
		}
	}
	mean, m2, m4 := 0.0, 0.0, 0.0
	for _, x := range logs {
		mean += x / n
	}
	for _, x := range logs {
		m2 += (x - mean) * (x - mean) / n
		m4 += math.Pow(x-mean, 4) / n
	}
	sd := math.Sqrt(m2)
	if math.Abs(sd-math.Sqrt(math.Log1p(cv*cv))) > 0.006 {
		t.Errorf("log-factor sd %.4f, want ≈ %.4f", sd, math.Sqrt(math.Log1p(cv*cv)))
	}
	if kurt := m4 / (m2 * m2); kurt < 4 {
		t.Errorf("kurtosis %.2f: tails no heavier than a normal's (3)", kurt)
	}
	if differ < n*9/10 {
		t.Errorf("metrics of a trial differ in only %d of %d trials", differ, n)
	}
	if trialNoise(5, 7, cv)("total_tps") != trialNoise(5, 7, cv)("total_tps") {
		t.Error("the same seed and trial gave different noise")
	}
	// Drift: neighbouring trials move together more than distant ones.
	near, far := 0.0, 0.0
	for s := range int64(400) {
		d := func(k int) float64 { return math.Log(drift(s, k, 0.03)) }
		near += (d(30) - d(31)) * (d(30) - d(31))
		far += (d(5) - d(60)) * (d(5) - d(60))
	}
	if !(near*5 < far) {
		t.Errorf("drift not slow: near %.5f far %.5f", near, far)
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
	a, b, a2 := NewReality(base, 1), NewReality(base, 2), NewReality(base, 1)
	if !reflect.DeepEqual(a, a2) || a.Cards.GPUs[0].HBMTBs == b.Cards.GPUs[0].HBMTBs || a.ProfileShift == b.ProfileShift {
		t.Fatal("the same seed must give the same reality, another seed another")
	}
	in := func(what string, x, lo, hi float64) {
		if x < lo-1e-9 || x > hi+1e-9 {
			t.Errorf("%s ×%.3f outside [%g, %g]", what, x, lo, hi)
		}
	}
	for i, g := range a.Cards.GPUs {
		o := base.GPUs[i]
		in(g.Name+" bandwidth", g.HBMTBs/o.HBMTBs, 1-effRange, 1+effRange)
		if o.NVLinkGBs > 0 {
			in(g.Name+" NVLink", g.NVLinkGBs/o.NVLinkGBs, 1-commRange, 1+commRange)
		}
		in(g.Name+" memory", g.MemGiB/o.MemGiB, 1-memRange, 1+memRange)
	}
	for i, m := range a.Cards.Models {
		o := base.Models[i]
		in(m.Name+" expert_eff", m.ExpertEff/orOne(o.ExpertEff), expertLo, expertHi)
		in(m.Name+" comm_eff", m.CommEff/orOne(o.CommEff), commLo, commHi)
		in(m.Name+" mem_overhead", m.MemOverhead/orOne(o.MemOverhead), overLo, overHi)
		in(m.Name+" mtp_acceptance", m.MTPAcceptance, 0.05, 0.95)
	}
	for i, d := range a.Cards.Drafts {
		if r := d.Acceptance / base.Drafts[i].Acceptance; d.Acceptance != 0.05 && d.Acceptance != 0.95 {
			in(d.Name+" acceptance", r, acceptLo, acceptHi)
		}
	}
	for e, k := range a.Skew.Kernel {
		in(e+" kernels", k, 1/kernelRange, kernelRange)
	}
	in("step CPU", a.Skew.StepCPU, 1/cpuRange, cpuRange)
	in("eager", a.Skew.Eager, eagerLo, eagerHi)
	in("prefill", a.Skew.Prefill, 1/cpuRange, cpuRange)
	if !reflect.DeepEqual(base, sim.DefaultCards()) {
		t.Error("NewReality changed the cards it was given")
	}
}

// A reality oracle draws its own request sequence and skew, and its cache
// file is its own.
func TestRealityOracleShiftsTheRequestsAndKeysTheCache(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	r := NewReality(sim.DefaultCards(), 3)
	o := NewRealityOracle(sp, r)
	if o.sp.Profiles[0].Seed != sp.Profiles[0].Seed+r.ProfileShift {
		t.Errorf("profile seed %d, want %d", o.sp.Profiles[0].Seed, sp.Profiles[0].Seed+r.ProfileShift)
	}
	if sp.Profiles[0].Seed == o.sp.Profiles[0].Seed {
		t.Error("the landscape's profile was changed in place")
	}
	unskewed := NewRealityOracle(sp, Reality{Cards: r.Cards, ProfileShift: r.ProfileShift})
	dir := t.TempDir()
	if o.cacheFile(dir) == unskewed.cacheFile(dir) {
		t.Error("the skew is not in the cache key")
	}
	if s := o.Screening(); s != o && s.skew != o.skew {
		t.Error("the screening oracle lost the reality's skew")
	}
}
