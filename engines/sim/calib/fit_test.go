package calib

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/servetune/servetune/engines/sim"
)

// synthetic predicts throughput-like values that follow HBM bandwidth
// (decode-bound points) or the model's expert efficiency (MoE-bound
// points) as power laws; nothing reads NVLink, compute or the drafts.
func synthetic(n int) func(context.Context, *sim.Cards) ([]float64, error) {
	base := sim.DefaultCards()
	g0, _ := base.GPU("H200")
	return func(_ context.Context, c *sim.Cards) ([]float64, error) {
		g, _ := c.GPU("H200")
		m, _ := c.Model("GLM-5.2")
		bw, ex := g.HBMTBs/g0.HBMTBs, orOne(m.ExpertEff)
		out := make([]float64, n)
		for i := range out {
			a := float64(i%4) / 3 // mixes of the two bottlenecks
			out[i] = float64(100+10*i) * math.Pow(bw, a) * math.Pow(ex, 1-a*0.8)
		}
		return out, nil
	}
}

func problem(t *testing.T, n int, truth *sim.Cards) Problem {
	t.Helper()
	fs, err := Candidates(sim.DefaultCards(), "H200", "zai-org/GLM-5.2-FP8")
	if err != nil {
		t.Fatal(err)
	}
	predict := synthetic(n)
	measured, _ := predict(context.Background(), truth)
	labels := make([]string, n)
	for i := range labels {
		labels[i] = "total_tps"
	}
	return Problem{Cards: sim.DefaultCards(), Factors: fs, Labels: labels, Measured: measured, Trials: n, Predict: predict}
}

func truthWith(t *testing.T, bw, expert float64) *sim.Cards {
	t.Helper()
	fs, _ := Candidates(sim.DefaultCards(), "H200", "GLM-5.2")
	x := make([]float64, len(fs))
	for k := range x {
		x[k] = 1
	}
	x[0], x[3] = bw, expert // gpu hbm_tbs, model expert_eff
	return Apply(sim.DefaultCards(), fs, x)
}

func TestFitRecoversTheFactorsTheMeasurementsMove(t *testing.T) {
	res, err := Fit(context.Background(), problem(t, 8, truthWith(t, 0.75, 1.4)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range res.Fitted {
		got[f.Name] = f.Scale
	}
	if len(res.Fitted) != 2 || math.Abs(got["gpu H200 hbm_tbs"]-0.75) > 0.05 || math.Abs(got["model GLM-5.2 expert_eff"]-1.4) > 0.08 {
		t.Errorf("fitted %v, want hbm ≈0.75 and expert_eff ≈1.4 only (fixed: %v)", res.Fitted, res.Fixed)
	}
	if !(res.After[0].Max < res.Before[0].Max/5) {
		t.Errorf("max error %.3f before, %.3f after: want far lower", res.Before[0].Max, res.After[0].Max)
	}
	if len(res.Fixed) != len(problem(t, 8, sim.DefaultCards()).Factors)-2 {
		t.Errorf("fixed %v, want every other candidate", res.Fixed)
	}
}

// The pull toward 1 keeps a factor the data cannot reach inside its
// bounds, and never past the truth.
func TestFitStaysWithinBounds(t *testing.T) {
	res, err := Fit(context.Background(), problem(t, 8, truthWith(t, 0.2, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Fitted {
		if f.Name == "gpu H200 hbm_tbs" && math.Abs(f.Scale-0.5) > 1e-9 {
			t.Errorf("hbm_tbs ×%v, want the lower bound 0.5", f.Scale)
		}
	}
}

func TestFitRefusesFewerTrialsThanFactors(t *testing.T) {
	p := problem(t, 8, truthWith(t, 0.8, 1.2))
	p.Trials = 1
	_, err := Fit(context.Background(), p)
	var tf *TooFewTrialsError
	if !errors.As(err, &tf) || tf.Trials != 1 || len(tf.Factors) != 2 {
		t.Fatalf("Fit with 1 trial = %v, want a TooFewTrialsError naming the 2 factors", err)
	}
}

func TestSummarizePerMetricWithRefusals(t *testing.T) {
	labels := []string{"a", "b", "a", "a", "b"}
	pred := []float64{110, 50, 100, math.NaN(), 200}
	meas := []float64{100, 100, 100, 100, 100}
	got := Summarize(labels, pred, meas)
	if len(got) != 2 || got[0].Metric != "a" || got[0].N != 2 || got[0].Refused != 1 ||
		math.Abs(got[0].Median-math.Log(1.1)/2) > 1e-12 || math.Abs(got[0].Max-math.Log(1.1)) > 1e-12 {
		t.Errorf("a: %+v", got[0])
	}
	if got[1].N != 2 || math.Abs(got[1].Median-math.Log(2)) > 1e-12 {
		t.Errorf("b: %+v", got[1])
	}
	if p := Percent(math.Log(1.25)); math.Abs(p-25) > 1e-9 {
		t.Errorf("Percent(ln 1.25) = %v", p)
	}
}

func TestApplyLeavesTheCardsAlone(t *testing.T) {
	c := sim.DefaultCards()
	before, _ := c.GPU("H200")
	fs, _ := Candidates(c, "H200", "GLM-5.2")
	x := make([]float64, len(fs))
	for k := range x {
		x[k] = 2
	}
	out := Apply(c, fs, x)
	after, _ := c.GPU("H200")
	scaled, _ := out.GPU("H200")
	if after.HBMTBs != before.HBMTBs || after.NVLinkGBs != before.NVLinkGBs || scaled.HBMTBs != 2*before.HBMTBs {
		t.Errorf("Apply: original %+v → %+v, copy %+v", before, after, scaled)
	}
	for _, d := range out.Drafts {
		if d.Acceptance > maxAcceptance {
			t.Errorf("draft %s acceptance %v above the cap", d.Name, d.Acceptance)
		}
	}
}
