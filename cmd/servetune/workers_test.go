package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servetune/servetune/studies/pgtest"
)

// run --workers 4 keeps n_trials exact and never measures a config twice.
func TestRunWithWorkersIsExact(t *testing.T) {
	abs, _ := filepath.Abs("../../examples/quickstart.toml")
	dir := t.TempDir()
	code, _, errText := runCLI(t, dir, "--log-level", "warn", "run", "--workers", "4", "--n-trials", "16", abs)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errText)
	}
	code, out, errText := runCLI(t, dir, "show", "--json", "quickstart")
	if code != 0 {
		t.Fatalf("show: exit %d %s", code, errText)
	}
	var trials []struct {
		Number int            `json:"number"`
		State  string         `json:"state"`
		Config map[string]any `json:"config"`
		Worker string         `json:"worker"`
	}
	if err := json.Unmarshal([]byte(out), &trials); err != nil {
		t.Fatal(err)
	}
	done, seen, workers := 0, map[string]int{}, map[string]bool{}
	for _, tr := range trials {
		if tr.State != "interrupted" && tr.State != "running" {
			done++
		}
		key, _ := json.Marshal(tr.Config)
		if prev, ok := seen[string(key)]; ok {
			t.Errorf("trials %d and %d measure the same config %s", prev, tr.Number, key)
		}
		seen[string(key)] = tr.Number
		workers[tr.Worker] = true
	}
	if done != 16 {
		t.Errorf("%d trials finished, want exactly 16", done)
	}
	if len(workers) < 2 {
		t.Errorf("trials ran on workers %v: want several", workers)
	}
}

func TestWorkersRefusedWhereTheyCannotRun(t *testing.T) {
	abs, _ := filepath.Abs("../../examples/quickstart.toml")
	code, _, errText := runCLI(t, t.TempDir(), "run", "--workers", "0", abs)
	if code != 2 || !strings.Contains(errText, "--workers") {
		t.Errorf("--workers 0: exit %d %s, want a usage error", code, errText)
	}
}

func TestWorkerRefusesStorageItCannotShare(t *testing.T) {
	abs, _ := filepath.Abs("../../examples/quickstart.toml")
	t.Setenv(storageEnv, "")
	for _, args := range [][]string{
		{"worker", abs},
		{"worker", "--storage", "studies/quickstart/study.db", abs},
		{"worker", "--storage", "postgres://u@h/db", "--lease", "0s", abs},
	} {
		code, _, errText := runCLI(t, t.TempDir(), args...)
		if code != 2 {
			t.Errorf("%v: exit %d %s, want a usage error", args, code, errText)
		}
	}
}

// A worker runs its share of a study in PostgreSQL; show and best read it
// from there.
func TestWorkerStudyInPostgresIsShownAndRanked(t *testing.T) {
	url := pgtest.Start(t)
	abs, _ := filepath.Abs("../../examples/quickstart.toml")
	dir := t.TempDir()
	code, _, errText := runCLI(t, dir, "--log-level", "warn", "worker", "--storage", url, "--workers", "3", "--n-trials", "12", abs)
	if code != 0 {
		t.Fatalf("worker: exit %d\n%s", code, errText)
	}
	t.Setenv(storageEnv, url) // the URL from the environment, as a cluster passes its secret
	code, out, errText := runCLI(t, dir, "show", "--json", "quickstart")
	if code != 0 {
		t.Fatalf("show: exit %d %s", code, errText)
	}
	var trials []struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal([]byte(out), &trials); err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, tr := range trials {
		if tr.State != "interrupted" && tr.State != "running" {
			done++
		}
	}
	if done != 12 {
		t.Errorf("%d trials finished in PostgreSQL, want 12", done)
	}
	code, out, _ = runCLI(t, dir, "best", "--json", "quickstart")
	if code != 0 || !strings.Contains(out, `"winners"`) {
		t.Errorf("best from PostgreSQL: exit %d\n%.300s", code, out)
	}
}

// run --workers packs simulated trials onto the GPUs it is given: the
// trials record theirs, and no GPU is outside the set.
func TestRunWithWorkersPacksOntoItsGPUs(t *testing.T) {
	abs, _ := filepath.Abs("../../examples/quickstart.toml")
	dir := t.TempDir()
	t.Setenv("SLURM_JOB_GPUS", "8,9,10,11,12,13,14,15") // the scheduler's set, unless --gpus says otherwise
	code, _, errText := runCLI(t, dir, "--log-level", "warn", "run", "--workers", "4", "--n-trials", "8", abs)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errText)
	}
	code, out, _ := runCLI(t, dir, "show", "--json", "quickstart")
	var trials []struct {
		Number  int      `json:"number"`
		Devices []string `json:"devices"`
		Reason  string   `json:"reason"`
	}
	if err := json.Unmarshal([]byte(out), &trials); err != nil || code != 0 {
		t.Fatalf("show: %v", err)
	}
	used := 0
	for _, tr := range trials {
		for _, d := range tr.Devices {
			if n, _ := strconv.Atoi(d); n < 8 || n > 15 {
				t.Errorf("trial %d ran on GPU %s, outside SLURM_JOB_GPUS", tr.Number, d)
			}
		}
		used += len(tr.Devices)
	}
	if used == 0 {
		t.Error("no trial recorded its GPUs")
	}
	code, _, errText = runCLI(t, t.TempDir(), "run", "--workers", "2", "--gpus", "0-x", abs)
	if code != 2 || !strings.Contains(errText, "--gpus") {
		t.Errorf("--gpus 0-x: exit %d %s, want a usage error", code, errText)
	}
}
