package calibrate

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// calibSpace is a small GLM-5.2 study (testdata/calib.toml): one short
// random profile keeps each simulation to milliseconds.
const calibSpace = "testdata/calib.toml"

// calibrationConfigs cover both engines, TP and DP attention, with and
// without DeepEP, and several batch limits.
func calibrationConfigs() []space.Config {
	return []space.Config{
		{"engine": "vllm", "tp": int64(8)},
		{"engine": "vllm", "tp": int64(8), "max_running": int64(32)},
		{"engine": "sglang", "tp": int64(8), "mem_fraction": 0.85},
		{"engine": "sglang", "tp": int64(8), "mem_fraction": 0.85, "max_running": int64(32)},
		{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.82},
		{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "moe_a2a_backend": "deepep", "mem_fraction": 0.82},
		{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "moe_a2a_backend": "deepep", "mem_fraction": 0.8, "max_running": int64(64)},
		{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.8, "max_running": int64(128)},
		// Out of memory in reality, where the overhead is 30% higher; the
		// first two start on the built-in cards.
		{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.84},
		{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.86},
		{"engine": "sglang", "tp": int64(8), "dp": int64(8), "enable_dp_attention": true, "mem_fraction": 0.9},
	}
}

// perturbedReality: the GPU's bandwidth 20% lower and compute 25%
// higher than its card, the model's token exchange 40% slower and its
// memory overhead 30% higher than the engines' calibration says.
func perturbedReality(t *testing.T) (*sim.Cards, map[string]float64) {
	t.Helper()
	known := map[string]float64{
		"gpu H200 hbm_tbs":                0.8,
		"gpu H200 bf16_tflops+fp8_tflops": 1.25,
		"model GLM-5.2 comm_eff":          0.6,
		"model GLM-5.2 mem_overhead":      1.3,
	}
	fs, err := calib.Candidates(sim.DefaultCards(), "H200", "GLM-5.2")
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, len(fs))
	for k, f := range fs {
		x[k] = 1
		if v, ok := known[f.Name]; ok {
			x[k] = v
		}
	}
	return calib.Apply(sim.DefaultCards(), fs, x), known
}

// measuredStudy runs the configs against reality with 3% measurement
// noise, as a finished study would have recorded them.
func measuredStudy(t *testing.T, sp *space.Space, reality *sim.Cards, cfgs []space.Config) []store.Trial {
	t.Helper()
	r := objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: reality}))
	tg := sp.Target
	tg.Sim.NoiseCV = 0.03
	var out []store.Trial
	for i, c := range cfgs {
		res, err := r.Run(context.Background(), objective.Trial{Number: i + 1, Seed: int64(i + 1), Config: c, Target: tg, Profiles: sp.Profiles})
		var f *engines.Failure
		switch {
		case errors.As(err, &f) && f.Class == engines.OOM:
			out = append(out, store.Trial{Number: i + 1, State: store.Infeasible, Config: c, Failure: f})
		case err != nil:
			t.Fatalf("reality refuses %v: %v", c.Summary(), err)
		default:
			out = append(out, store.Trial{Number: i + 1, State: store.Complete, Config: c, Metrics: res.Metrics})
		}
	}
	return out
}

func parseCalibrateSpace(t *testing.T) *space.Space {
	t.Helper()
	sp, err := space.Load(context.Background(), calibSpace, studies.SpaceOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// Eight trials measured against a reality with known factors: the fit
// moves each known factor toward its true value and the simulator's
// error on every metric falls well below what it was.
func TestCalibrateRecoversAPerturbedReality(t *testing.T) {
	sp := parseCalibrateSpace(t)
	reality, known := perturbedReality(t)
	trials := measuredStudy(t, sp, reality, calibrationConfigs())
	res, n, err := Study(context.Background(), sp, trials, sim.DefaultCards())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	Print(&out, res, n, "trials")
	t.Logf("\n%s", out.String())
	fitted := map[string]float64{}
	for _, f := range res.Fitted {
		fitted[f.Name] = f.Scale
	}
	for name, truth := range known {
		got, ok := fitted[name]
		if !ok || math.Abs(math.Log(got/truth)) > 0.5*math.Abs(math.Log(truth)) {
			t.Errorf("%s: fitted ×%v (fitted: %t), truth ×%v: want at least halfway there", name, got, ok, truth)
		}
	}
	// MoE decode streams expert weights: bandwidth and expert efficiency
	// act almost only as a product there, which the fit must get right
	// whatever share the pull toward 1 gives each.
	if p := fitted["gpu H200 hbm_tbs"] * fitted["model GLM-5.2 expert_eff"]; math.Abs(p-0.8) > 0.06 {
		t.Errorf("bandwidth × expert efficiency = %.3f, truth 0.8", p)
	}
	if m := res.Memory; m == nil || m.After != m.Configs || m.Before >= m.Configs {
		t.Errorf("start/OOM agreement %+v: want every config right after, not before", m)
	}
	for i, b := range res.Before {
		if a := res.After[i]; !(a.Median < b.Median/3) || !(a.Max < b.Max/2) || a.Refused > 0 {
			t.Errorf("%s: error median %.3f → %.3f, max %.3f → %.3f, refused %d: want far lower",
				b.Metric, b.Median, a.Median, b.Max, a.Max, a.Refused)
		}
	}
}

// The written cards load with --cards and simulate what the fit found.
func TestCalibratedCardsRoundTrip(t *testing.T) {
	sp := parseCalibrateSpace(t)
	reality, _ := perturbedReality(t)
	trials := measuredStudy(t, sp, reality, calibrationConfigs())
	res, _, err := Study(context.Background(), sp, trials, sim.DefaultCards())
	if err != nil {
		t.Fatal(err)
	}
	doc, err := FittedCards(res.Cards, sim.DefaultCards(), sp.Target)
	if err != nil {
		t.Fatal(err)
	}
	loaded := sim.DefaultCards()
	if err := loaded.Add(bytes.NewReader(doc)); err != nil {
		t.Fatalf("written cards do not load: %v\n%s", err, doc)
	}
	pts := calibrationPoints(sp, trials)
	slots := calibrationSlots(sp, pts)
	want, _ := simulatedSlots(sp, pts, slots)(context.Background(), res.Cards)
	got, _ := simulatedSlots(sp, pts, slots)(context.Background(), loaded)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s of trial %d: %v from the file, %v from the fit\n%s", slots[i].Metric, slots[i].Trial, got[i], want[i], doc)
		}
	}
	if !strings.Contains(string(doc), "expert_eff") || strings.Contains(string(doc), "mtp_acceptance") {
		t.Errorf("want the fitted factors and no unfitted ones in the cards:\n%s", doc)
	}
}

// Two trials cannot pin the factors that move them: the command
// refuses, naming the factors.
func TestCalibrateRefusesFewerTrialsThanFactors(t *testing.T) {
	sp := parseCalibrateSpace(t)
	reality, _ := perturbedReality(t)
	trials := measuredStudy(t, sp, reality, calibrationConfigs()[2:4])
	_, _, err := Study(context.Background(), sp, trials, sim.DefaultCards())
	if err == nil || !strings.Contains(err.Error(), "2 complete trials, but") || !strings.Contains(err.Error(), "are needed") {
		t.Fatalf("calibrate on 2 trials = %v, want a refusal naming the factors", err)
	}
}
