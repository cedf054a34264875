package optunadb

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// repeatTrials measures configs again (a noise repeat, a confirmation)
// and reuses one measurement, every trial meeting the SLO: per trial the
// Pareto front is trials 1-6 (a repeat and a reuse on it), per config —
// servetune's reading — it is 1, 2, 4, 5 and 8 (config A at its mean
// 8500 tok/s beside D's 8600).
func repeatTrials() []store.Trial {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	mk := func(n int, origin string, c space.Config, tps, tpot float64) store.Trial {
		s := t0.Add(time.Duration(n) * time.Minute)
		return store.Trial{Number: n, State: store.Complete, Origin: origin, Config: c, Start: s, End: s.Add(50 * time.Second), GPUSeconds: 400,
			Metrics: map[string]map[string]float64{"balanced": {"total_tps": tps, "mean_tpot_ms": tpot}, "chat": {"total_tps": tps / 2}}}
	}
	cfg := func(mr int64, mf float64, cp any) space.Config {
		return space.Config{"max_running": mr, "mem_fraction": mf, "chunked_prefill": cp}
	}
	a, b := cfg(256, 0.85, int64(8192)), cfg(512, 0.9, "default")
	a["enable_dp_attention"] = true // only A sets the conditional knob
	ts := []store.Trial{
		mk(1, "baseline", space.Config{"max_running": int64(64)}, 5000, 40),
		mk(2, "sampler", a, 9000, 55),
		mk(3, "noise", a, 8000, 50),
		mk(4, "sampler", b, 12000, 58),
		mk(5, "sampler", cfg(32, 0.7, int64(16384)), 3000, 30),
		mk(6, "reused", b, 12000, 58),
		mk(7, "confirm", b, 11000, 59),
		mk(8, "sampler", cfg(128, 0.75, int64(8192)), 8600, 56),
	}
	ts[5].ReusedFrom = 4
	return ts
}

// Optuna's best_trials is servetune's front when configs are measured
// more than once: one COMPLETE trial per config at its central value, the
// repeats and the reuse PRUNED and naming the trial that holds them.
func TestOptunaBestTrialsAreServetunesFrontWithRepeats(t *testing.T) {
	py := systemPython(t)
	sp, trials := fixtureSpaceParsed(t), repeatTrials()
	url := "sqlite:///" + filepath.Join(t.TempDir(), "optuna.db")
	writeAll(t, url, sp, trials)
	v := loadWithOptuna(t, py, url, "interop")

	rep := studies.BuildReport(sp, trials, nil)
	var want []int
	for _, w := range rep.Winners {
		want = append(append(want, w.Trial), w.Equivalent...)
	}
	slices.Sort(want)
	if !slices.Equal(want, []int{1, 2, 4, 5, 8}) {
		t.Fatalf("servetune's front %v, want trials 1 2 4 5 8 (the fixture's premise)", want)
	}
	if !slices.Equal(v.Best, want) {
		t.Errorf("Optuna's best_trials %v (%d), servetune's front %v (%d)", v.Best, len(v.Best), want, len(want))
	}
	for _, w := range rep.Winners {
		if got := v.Trials[w.Trial-1].Values; !slices.Equal(got, w.Values) {
			t.Errorf("trial %d: Optuna's values %v, servetune's row %v", w.Trial, got, w.Values)
		}
	}
	if got := v.Trials[1].UserAttrs["chat/total_tps"]; got != 4250.0 {
		t.Errorf("trial 2's chat/total_tps is %v, want its config's mean 4250", got)
	}
	if got := v.Trials[1].UserAttrs["gpus"]; got != 1.0 {
		t.Errorf("trial 2's gpus attribute is %v, want 1 (sglang, tp 1)", got)
	}
	if got, ok := v.Trials[1].UserAttrs["measurements"].([]any); !ok || len(got) != 2 {
		t.Errorf("trial 2's measurements attribute %v, want its two", v.Trials[1].UserAttrs["measurements"])
	}
	for n, of := range map[int]float64{3: 2, 7: 4} {
		if tr := v.Trials[n-1]; tr.State != "PRUNED" || tr.UserAttrs["repeat_of"] != of || tr.Values != nil {
			t.Errorf("repeat trial %d: state %s repeat_of %v values %v, want PRUNED of trial %v without values", n, tr.State, tr.UserAttrs["repeat_of"], tr.Values, of)
		}
	}
	if tr := v.Trials[5]; tr.State != "PRUNED" || tr.UserAttrs["reused_from"] != 4.0 {
		t.Errorf("reused trial 6: state %s reused_from %v, want PRUNED from trial 4", tr.State, tr.UserAttrs["reused_from"])
	}
	if best := optunaCLI(t, py, "best-trials", "--study-name", "interop", "--storage", url, "-f", "json"); len(best) != len(want) {
		t.Errorf("`optuna best-trials` lists %d trials, servetune's front has %d", len(best), len(want))
	}
}

// importanceScript runs Optuna's default importance (fANOVA, needs
// sklearn) on the first objective, over the params in every complete
// trial and over the conditional knob named.
const importanceScript = `
import json, sys, warnings
warnings.simplefilter("ignore")
import optuna
optuna.logging.set_verbosity(optuna.logging.ERROR)
s = optuna.load_study(study_name=sys.argv[2], storage=sys.argv[1])
first = lambda t: t.values[0]
print(json.dumps({
  "default": optuna.importance.get_param_importances(s, target=first),
  "named": optuna.importance.get_param_importances(s, target=first, params=sys.argv[3:]),
}))
`

// Optuna's importance runs on the export: over the params every
// complete trial has (the baseline sets only max_running, so only it),
// and over knobs named, on the trials that have them.
func TestOptunaImportanceRunsOnTheExport(t *testing.T) {
	py := systemPython(t)
	if err := exec.Command(py, "-c", "import sklearn").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("Optuna's importance needs sklearn in CI (apt-get install python3-sklearn): %v", err)
		}
		t.Skipf("Optuna's importance needs sklearn (apt-get install python3-sklearn): %v", err)
	}
	sp := fixtureSpaceParsed(t)
	url := "sqlite:///" + filepath.Join(t.TempDir(), "optuna.db")
	writeAll(t, url, sp, repeatTrials())
	var stderr bytes.Buffer
	cmd := exec.Command(py, "-c", importanceScript, url, "interop", "max_running", "mem_fraction")
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("optuna.importance: %v\n%s", err, stderr.String())
	}
	var got struct{ Default, Named map[string]float64 }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Default) != 1 || got.Default["max_running"] != 1 {
		t.Errorf("default importance %v, want max_running alone (the only param in every complete trial)", got.Default)
	}
	if _, ok := got.Named["mem_fraction"]; !ok || len(got.Named) != 2 {
		t.Errorf("importance over max_running and mem_fraction: %v", got.Named)
	}
}
