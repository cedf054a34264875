package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
)

// measuredOn writes runs as `vllm bench serve --save-result` files in
// wrappers, measured on a reality whose H100 reaches 80% of the built-in
// card's HBM bandwidth.
func measuredOn(t *testing.T, dir string, n int) string {
	t.Helper()
	truth := sim.DefaultCards()
	for i := range truth.GPUs {
		if truth.GPUs[i].Name == "H100" {
			truth.GPUs[i].HBMTBs *= 0.8
		}
	}
	r := objective.NewSimRunner(objective.WithSimulator(&sim.Simulator{Cards: truth}))
	var wrappers []map[string]any
	for i := range n {
		conc := 4 << i
		p := bench.Profile{Name: "measured", Dataset: "random", InputLen: 512, OutputLen: 64, NumPrompts: 2 * conc, MaxConcurrency: conc, RequestRate: math.Inf(1), Seed: 1}
		cfg := space.Config{"engine": "vllm", "max_running": int64(64)}
		res, err := r.Run(context.Background(), objective.Trial{Config: cfg, Target: space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}, Profiles: []bench.Profile{p}})
		if err != nil {
			t.Fatal(err)
		}
		m := res.Metrics["measured"]
		result := map[string]any{"completed": p.NumPrompts, "failed": 0, "request_rate": "inf", "max_concurrency": conc,
			"total_input_tokens": 512 * p.NumPrompts, "total_output_tokens": 64 * p.NumPrompts,
			"mean_ttft_ms": m["mean_ttft_ms"], "mean_tpot_ms": m["mean_tpot_ms"], "total_token_throughput": m["total_tps"]}
		name := fmt.Sprintf("run%d.json", i)
		writeJSON(t, filepath.Join(dir, name), result)
		wrappers = append(wrappers, map[string]any{"engine": "vllm", "version": "0.15.1", "model": "Qwen/Qwen3-8B", "gpu": "H100",
			"command": "vllm serve Qwen/Qwen3-8B --max-num-seqs 64", "result_file": name})
	}
	path := filepath.Join(dir, "runs.json")
	writeJSON(t, path, wrappers)
	return path
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// calibrate --measurements recovers the bandwidth the runs were measured
// at, prints the error before, after and leave-one-out, and writes cards
// that load.
func TestCalibrateMeasurements(t *testing.T) {
	dir := t.TempDir()
	runs := measuredOn(t, dir, 4)
	out := filepath.Join(dir, "fitted.toml")
	code, stdout, stderr := runCLI(t, dir, "calibrate", "--measurements", runs, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`gpu H100 hbm_tbs\s+×([0-9.]+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no fitted bandwidth:\n%s", stdout)
	}
	if x, _ := strconv.ParseFloat(m[1], 64); math.Abs(x-0.8) > 0.08 {
		t.Errorf("fitted hbm ×%v, measured at ×0.8:\n%s", x, stdout)
	}
	t.Log(stdout)
	if !strings.Contains(stdout, "leave-one-out") || !strings.Contains(stdout, "mean_ttft_ms") {
		t.Errorf("no leave-one-out report:\n%s", stdout)
	}
	cards := sim.DefaultCards()
	b, err := os.ReadFile(out)
	if err != nil || cards.AddFile(out, b) != nil {
		t.Fatalf("fitted cards: %v\n%s", err, b)
	}
	if g, _ := cards.GPU("H100"); math.Abs(g.HBMTBs/3.35-0.8) > 0.08 {
		t.Errorf("written H100 hbm_tbs %v", g.HBMTBs)
	}
}

// One run cannot pin the factors it moves: the fit is refused. Bad files
// are bad input (exit 2, file and key named, nothing written).
func TestCalibrateMeasurementsRefuses(t *testing.T) {
	dir := t.TempDir()
	runs := measuredOn(t, dir, 1)
	out := filepath.Join(dir, "fitted.toml")
	code, _, stderr := runCLI(t, dir, "calibrate", "--measurements", runs, "--out", out)
	if code != 2 || !strings.Contains(stderr, "calibrate: 1 run, but 2 factors are identifiable from them") || !strings.Contains(stderr, "give at least 2 runs") {
		t.Errorf("one run: exit %d, want 2 and the runs it needs\n%s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"engine": "vllm", "model": "Qwen/Qwen3-8B", "gpu": "H100", "config": {"max_runing": 8}, "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 4, "mean_ttft_ms": 9}}`), 0o644)
	code, _, stderr = runCLI(t, dir, "calibrate", "--measurements", bad, "--out", out)
	if code != 2 || !strings.Contains(stderr, `bad.json:1: config.max_runing: engine vllm has no such knob; did you mean "max_running"?`) {
		t.Errorf("unknown knob: exit %d\n%s", code, stderr)
	}
	// In an array of runs, the line is the run's own.
	os.WriteFile(bad, []byte("[{\"engine\": \"vllm\", \"model\": \"Qwen/Qwen3-8B\", \"gpu\": \"H100\", \"result\": {\"completed\": 4, \"total_input_tokens\": 40, \"total_output_tokens\": 4, \"mean_ttft_ms\": 9}},\n"+
		"{\"engine\": \"vllm\", \"model\": \"Qwen/Qwen3-8B\",\n \"gpu\": \"H10\", \"result\": {\"completed\": 4, \"total_input_tokens\": 40, \"total_output_tokens\": 4, \"mean_ttft_ms\": 9}}]"), 0o644)
	code, _, stderr = runCLI(t, dir, "calibrate", "--measurements", bad, "--out", out)
	if code != 2 || !strings.Contains(stderr, `bad.json:3: [1].gpu: sim: no GPU card "H10"; did you mean "H100"?`) {
		t.Errorf("unknown GPU in the second run: exit %d\n%s", code, stderr)
	}
	os.WriteFile(bad, []byte(`{"engine": "vllm", "modle": "Qwen/Qwen3-8B", "gpu": "H100"}`), 0o644)
	code, _, stderr = runCLI(t, dir, "calibrate", "--measurements", bad, "--out", out)
	if code != 2 || !strings.Contains(stderr, `bad.json:1: modle: unknown key; did you mean "model"?`) {
		t.Errorf("misspelt key: exit %d\n%s", code, stderr)
	}
	os.WriteFile(bad, []byte(`{"engine": "vllm", "model": "acme/unknown", "gpu": "H100", "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 4, "mean_ttft_ms": 9}}`), 0o644)
	code, _, stderr = runCLI(t, dir, "calibrate", "--measurements", bad, "--out", out)
	if code != 2 || !strings.Contains(stderr, "servetune card") {
		t.Errorf("unknown model: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("cards were written for a refused fit")
	}
}
