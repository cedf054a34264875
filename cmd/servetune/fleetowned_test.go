package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// ownedSpace is examples/fleet-owned.toml with a fake vLLM (this test
// binary, recording each engine's life in record) in place of vLLM, a
// profile the fake serves in moments, its price file found from dir, and
// one config of each simulated type enqueued so the study runs both.
func ownedSpace(t *testing.T, dir, record string) string {
	t.Helper()
	example, err := filepath.Abs("../../examples/fleet-owned.toml")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	var env []string
	for k, v := range enginetest.Env("vllm", enginetest.Options{RecordFile: record, TTFT: 5 * time.Millisecond, ITL: time.Millisecond}) {
		env = append(env, fmt.Sprintf("%s = %q", k, v))
	}
	s := strings.NewReplacer(
		`prices = "prices.toml"`, fmt.Sprintf("prices = %q", filepath.Join(filepath.Dir(example), "prices.toml")),
		"num_prompts = 400", "num_prompts = 8",
		"output_len = 300", "output_len = 8",
		"input_len = 1000", "input_len = 16",
	).Replace(string(src))
	s += fmt.Sprintf(`
[target.engines.vllm]
command = [%q]
env = { %s }

[[enqueue]]
gpu = "H200"
tp = 1
max_running = 32

[[enqueue]]
gpu = "A100-80GB"
tp = 2
max_running = 64
`, enginetest.Program(), strings.Join(env, ", "))
	path := filepath.Join(dir, "fleet-owned.toml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// examples/fleet-owned.toml end to end on a fake vLLM: H100 trials
// launch the engine and are measured; H200 and A100-80GB trials never
// launch one, run on the simulator, cost no GPU time and keep its
// intervals; the report names each row's source and the best config of
// every GPU type.
func TestFleetOwnedExampleMeasuresTheOwnedTypeAndSimulatesTheRest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	record := filepath.Join(dir, "lives")
	cmd := exec.Command(bin, "--log-format", "json", "run", "--n-trials", "8", ownedSpace(t, dir, record))
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	trials := readTrials(t, filepath.Join(dir, "studies", "fleet-owned", "study.db"))
	launched := checkOwnedTrials(t, trials)
	lives, err := enginetest.ReadLives(record)
	if err != nil && launched > 0 {
		t.Fatal(err)
	}
	if len(lives) == 0 || len(lives) > launched {
		for _, tr := range trials {
			t.Logf("trial %d: %s %s %v reused %d ran %v: %s", tr.Number, tr.State, tr.Runner, tr.Config, tr.ReusedFrom, tr.Ran != nil, tr.Why())
		}
		t.Errorf("%d engines started for %d trials that launched one", len(lives), launched)
	}
	for _, want := range []string{
		"Partly simulated: trials on H200, A100-80GB ran on servetune's simulator (target.simulated_gpus)",
		"Best per GPU type (usd_per_mtok_output):\n  H100: trial ",
		", measured\n", "simulated",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	checkOwnedReport(t, bin, dir)
}

// checkOwnedTrials checks where each trial ran and returns how many
// launched an engine.
func checkOwnedTrials(t *testing.T, trials []store.Trial) (launched int) {
	t.Helper()
	kinds := map[string]int{}
	for _, tr := range trials {
		if tr.BrokeRule() {
			continue
		}
		gpu := tr.Config.String("gpu")
		switch {
		case gpu == "H100":
			kinds["measured"]++
			if tr.Runner != "process" || tr.Intervals != nil {
				t.Errorf("H100 trial %d: runner %q, intervals %v", tr.Number, tr.Runner, tr.Intervals)
			}
			if tr.Ran != nil {
				launched++
			}
			if tr.ReusedFrom == 0 && tr.State == store.Complete && (tr.Ran == nil || tr.GPUSeconds <= 0) {
				t.Errorf("H100 trial %d ran %v for %v GPU-seconds", tr.Number, tr.Ran, tr.GPUSeconds)
			}
		default:
			kinds["simulated"]++
			if tr.Runner != "sim" || tr.Ran != nil || tr.Fingerprint != nil || tr.GPUSeconds != 0 {
				t.Errorf("%s trial %d: runner %q, ran %v, %v GPU-seconds", gpu, tr.Number, tr.Runner, tr.Ran, tr.GPUSeconds)
			}
			if _, ok := tr.Intervals["chat"]["p99_ttft_ms"]; tr.State == store.Complete && !ok {
				t.Errorf("%s trial %d states no interval for p99_ttft_ms: %v", gpu, tr.Number, tr.Intervals)
			}
			if _, ok := tr.Intervals["chat"]["usd_per_mtok_output"]; ok {
				t.Errorf("%s trial %d states an interval for a cost the simulator states none for", gpu, tr.Number)
			}
		}
	}
	t.Logf("%d trials: %d on H100 (%d launched an engine), %d simulated", len(trials), kinds["measured"], launched, kinds["simulated"])
	if kinds["measured"] == 0 || kinds["simulated"] < 2 {
		t.Errorf("trials: %v, want both kinds", kinds)
	}
	return launched
}

// checkOwnedReport reads `best --json`: the study is mixed, each row and
// recommendation names its source, and every GPU type has its pick.
func checkOwnedReport(t *testing.T, bin, dir string) {
	t.Helper()
	cmd := exec.Command(bin, "best", "--json", "fleet-owned")
	cmd.Dir = dir
	js, err := cmd.Output()
	if err != nil {
		t.Fatalf("best --json: %v", err)
	}
	var r studies.Report
	if err := json.Unmarshal(js, &r); err != nil {
		t.Fatalf("%v:\n%s", err, js)
	}
	if r.Runner != "mixed" || !r.Simulated || strings.Join(r.SimulatedGPUs, ",") != "H200,A100-80GB" {
		t.Errorf("runner %q simulated %v simulated_gpus %v", r.Runner, r.Simulated, r.SimulatedGPUs)
	}
	for _, w := range r.Winners {
		want := studies.SourceMeasured
		if w.Config.String("gpu") != "H100" {
			want = studies.SourceSimulated
		}
		if w.Source != want {
			t.Errorf("winner %d on %s: source %q", w.Trial, w.Config.String("gpu"), w.Source)
		}
	}
	for _, rec := range r.Recommendations {
		if rec.Source == "" || rec.GPU == "" {
			t.Errorf("recommendation %d names no source or GPU: %+v", rec.Trial, rec)
		}
	}
	sources := map[string]string{}
	for _, p := range r.GPUTypes {
		sources[p.GPU] = p.Source
	}
	if sources["H100"] != "measured" || sources["H200"] != "simulated" || sources["A100-80GB"] != "simulated" {
		t.Errorf("gpu_types %+v", r.GPUTypes)
	}
}
