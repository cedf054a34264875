package calibrate

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib"
	"github.com/servetune/servetune/engines/sim/calib/measure"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func runOf(t *testing.T, src string) Run {
	t.Helper()
	ms, err := measure.Parse("r.json", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRun(ms[0], sim.DefaultCards(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The problem compares each run's measured metrics, in the fit's metric
// order, tells which run each value is of, and predicts them by
// simulating the runs on the cards it is given.
func TestMeasurementProblemLayout(t *testing.T) {
	runs := []Run{
		runOf(t, `{"engine": "vllm", "model": "Qwen/Qwen3-8B", "gpu": "H100", "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 400, "mean_ttft_ms": 9, "mean_tpot_ms": 3}}`),
		runOf(t, `{"engine": "vllm", "model": "Qwen/Qwen3-8B", "gpu": "H100", "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 400, "mean_tpot_ms": 4}}`),
	}
	p, trialOf, err := MeasurementProblem(runs, sim.DefaultCards())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Labels, ","); got != "mean_ttft_ms,mean_tpot_ms,mean_tpot_ms" {
		t.Errorf("labels %s", got)
	}
	if p.Trials != 2 || len(trialOf) != 3 || trialOf[0] != 0 || trialOf[1] != 0 || trialOf[2] != 1 {
		t.Errorf("trials %d, trialOf %v", p.Trials, trialOf)
	}
	if p.Measured[0] != 9 || p.Measured[2] != 4 {
		t.Errorf("measured %v", p.Measured)
	}
	if len(p.Factors) == 0 {
		t.Error("no factor to fit for the runs' GPU and model")
	}
	pred, err := p.Predict(context.Background(), sim.DefaultCards())
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range pred {
		if !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("%s of run %d predicted %v", p.Labels[i], trialOf[i], v)
		}
	}
}

// Runs with nothing the fit compares are bad input: ErrNoMetrics.
func TestMeasurementProblemWithoutMetrics(t *testing.T) {
	r := runOf(t, `{"engine": "vllm", "model": "Qwen/Qwen3-8B", "gpu": "H100", "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 4, "mean_ttft_ms": 9}}`)
	r.m.Values = map[string]float64{"p99_ttft_ms": 20}
	_, _, err := MeasurementProblem([]Run{r}, sim.DefaultCards())
	if !errors.Is(err, ErrNoMetrics) || !strings.Contains(err.Error(), "total_tps, mean_ttft_ms") {
		t.Errorf("err = %v, want ErrNoMetrics naming the metrics", err)
	}
}

// Leave-one-out is refused outside 3 to maxLeaveOneOut runs, and the
// report says why there is none or lists each metric's errors.
func TestLeaveOneOutBoundsAndReport(t *testing.T) {
	for _, n := range []int{2, maxLeaveOneOut + 1} {
		if _, _, err := LeaveOneOut(context.Background(), calib.Problem{Trials: n}, nil); err == nil {
			t.Errorf("%d runs: leave-one-out not refused", n)
		}
	}
	var w bytes.Buffer
	PrintLeaveOneOut(&w, nil, 0, errors.New("leave-one-out needs 3 to 40 runs, have 2"))
	if w.String() != "no leave-one-out error: leave-one-out needs 3 to 40 runs, have 2\n" {
		t.Errorf("%q", w.String())
	}
	w.Reset()
	PrintLeaveOneOut(&w, []calib.MetricError{{Metric: "total_tps", Median: 0.05, Max: 0.1, Refused: 1}, {Metric: "mean_ttft_ms", Median: 0.2, Max: 0.4}}, 2, nil)
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(strings.TrimSpace(lines[1]), "mean_ttft_ms") ||
		!strings.Contains(lines[2], "(refused by the simulator: 1)") || !strings.Contains(lines[3], "2 folds") {
		t.Errorf("report:\n%s", w.String())
	}
}

// Which configs started or ran out of memory: reused trials and other
// failures say nothing of the memory line.
func TestStartObservations(t *testing.T) {
	oom := &engines.Failure{Class: engines.OOM}
	trials := []store.Trial{
		{Number: 1, State: store.Complete, Config: space.Config{"tp": int64(1)}},
		{Number: 2, State: store.Pruned, Config: space.Config{"tp": int64(2)}},
		{Number: 3, State: store.Infeasible, Failure: oom, Config: space.Config{"tp": int64(4)}},
		{Number: 4, State: store.Complete, ReusedFrom: 1, Config: space.Config{"tp": int64(1)}},
		{Number: 5, State: store.Failed, Failure: &engines.Failure{Class: engines.CrashedDuringBenchmark}},
	}
	cfgs, ran := startObservations(trials)
	if len(cfgs) != 3 || !ran[0] || !ran[1] || ran[2] || cfgs[2]["tp"] != int64(4) {
		t.Errorf("cfgs %v ran %v", cfgs, ran)
	}
}

// LoadRuns reads every run of every file, and refuses no files, a file
// that does not parse and a run the engines or cards refuse.
func TestLoadRuns(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "runs.json")
	run := `{"engine": "vllm", "model": "Qwen/Qwen3-8B", "gpu": "H100", "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 400, "mean_ttft_ms": 9}}`
	if err := os.WriteFile(good, []byte("["+run+","+run+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(strings.Replace(run, `"H100"`, `"H10"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := LoadRuns([]string{good, good}, sim.DefaultCards(), zerolog.Nop())
	if err != nil || len(runs) != 4 {
		t.Errorf("%d runs, %v", len(runs), err)
	}
	for files, want := range map[string]string{"": "--measurements needs at least one file", bad: `bad.json:1: gpu: sim: no GPU card "H10"`, filepath.Join(dir, "none.json"): "none.json"} {
		var fs []string
		if files != "" {
			fs = []string{good, files}
		}
		if _, err := LoadRuns(fs, sim.DefaultCards(), zerolog.Nop()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", files, err, want)
		}
	}
	got := TooFewRuns(&calib.TooFewTrialsError{Trials: 1, Factors: []string{"a", "b"}}).Error()
	if got != "calibrate: 1 run, but 2 factors are identifiable from them (a; b): give at least 2 runs; nothing was written" {
		t.Errorf("%s", got)
	}
}
