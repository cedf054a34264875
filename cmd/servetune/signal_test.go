package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/studies/store"
)

// signalSpace is a process-runner study whose engine is `servetune sim
// serve` imitating SGLang, slow enough (speed 1, a few seconds of startup
// and of benchmark) that a signal lands in the phase the test waits for.
func signalSpace(t *testing.T, bin, dir string) string {
	t.Helper()
	src := fmt.Sprintf(`
[study]
name = "signal"
n_trials = 3

[target]
runner = "process"
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 1
engine = "sglang"

[target.engines.sglang]
command = [%q, "sim", "serve", "--engine", "sglang", "--gpu", "H100", "--gpus", "1", "--speed", "1", "--startup", "3s", "--"]

[[objectives]]
metric = "total_tps"
direction = "maximize"

[profiles]
run = ["steady"]

[profiles.custom.steady]
input_len = 512
output_len = 512
num_prompts = 64
max_concurrency = 4
request_rate = inf

[params.max_running]
values = [8, 16, 32]
`, bin)
	path := filepath.Join(dir, "space.toml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// enginePGIDs reads the pidfiles the launcher keeps in the study directory.
func enginePGIDs(t *testing.T, studyDir string) []int {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(studyDir, "engines", "*.json"))
	var out []int
	for _, f := range files {
		var rec struct {
			PGID int `json:"pgid"`
		}
		if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &rec) == nil && rec.PGID > 0 {
			out = append(out, rec.PGID)
		}
	}
	return out
}

// Interrupting servetune (Ctrl-C or SIGTERM) while an engine starts up or
// serves the benchmark tears the engine's whole process group down before
// servetune exits with 130, and records the trial as interrupted.
func TestSignalTearsDownTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("launches engine processes")
	}
	bin := buildBinary(t)
	cases := []struct {
		name  string
		sig   syscall.Signal
		phase string
	}{
		// The engine has started and is still loading (3 s of startup).
		{"SIGINT while launching", syscall.SIGINT, ""},
		{"SIGTERM while benchmarking", syscall.SIGTERM, string(objective.Benchmarking)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			space := signalSpace(t, bin, dir)
			cmd := exec.Command(bin, "--log-format", "json", "--log-level", "debug", "run", space)
			cmd.Dir = dir
			logs, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			studyDir := filepath.Join(dir, "studies", "signal")
			var pgids []int
			sc := bufio.NewScanner(logs)
			for sc.Scan() {
				var ev struct {
					Message string `json:"message"`
					Phase   string `json:"phase"`
				}
				if json.Unmarshal(sc.Bytes(), &ev) != nil {
					continue
				}
				if ev.Message == "engine started" {
					pgids = enginePGIDs(t, studyDir)
				}
				launching := c.phase == "" && ev.Message == "engine started"
				if len(pgids) > 0 && (launching || ev.Message == "trial phase" && ev.Phase == c.phase) {
					_ = cmd.Process.Signal(c.sig)
					break
				}
			}
			for sc.Scan() { // drain, so servetune never blocks on stderr
			}
			err = cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Fatalf("servetune exited with %v, want code 130", err)
			}
			if len(pgids) == 0 {
				t.Fatal("no engine pidfile was seen")
			}
			for _, pg := range pgids {
				if !gone(pg) {
					t.Errorf("engine process group %d outlived servetune", pg)
					_ = syscall.Kill(-pg, syscall.SIGKILL)
				}
			}
			if left := enginePGIDs(t, studyDir); len(left) != 0 {
				t.Errorf("pidfiles left behind for %v", left)
			}
			ts := readTrials(t, filepath.Join(studyDir, "study.db"))
			last := ts[len(ts)-1]
			if last.State != store.Interrupted {
				t.Errorf("last trial %+v, want interrupted", last)
			}
		})
	}
}
