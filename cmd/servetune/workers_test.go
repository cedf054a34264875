package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/pgtest"
	"github.com/servetune/servetune/studies/store"
)

// run --workers 4 keeps n_trials exact and never measures a config twice.
func TestRunWithWorkersIsExact(t *testing.T) {
	abs := quickstartWithoutPrior(t)
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
		Origin string         `json:"origin"`
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
		if tr.Origin == "noise" || tr.Origin == "confirm" {
			continue // measured again on purpose (--confirm)
		}
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
	abs := quickstartWithoutPrior(t)
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
	abs := quickstartWithoutPrior(t)
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

// kill -9 of `run --workers 4` mid-trial, then a resume: every trial in
// flight is recorded interrupted and retried once, n_trials stays exact
// and no config is measured twice.
func TestSIGKILLOfParallelRunThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	space, _ := filepath.Abs("testdata/kill.toml")
	db := filepath.Join(dir, "studies", "kill", "study.db")
	killUntilMidTrial(t, func(minDone int) bool { return killParallelMidTrial(t, bin, dir, space, db, minDone) })
	cmd := exec.Command(bin, "--log-format", "json", "run", "--workers", "4", space)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	done, retried, seen := 0, map[int]int{}, map[string]int{}
	ts := readTrials(t, db)
	for _, tr := range ts {
		switch {
		case tr.State == store.Running:
			t.Errorf("trial %d left running", tr.Number)
		case tr.State == store.Interrupted:
			continue
		case tr.RetryOf != 0:
			retried[tr.RetryOf]++
		}
		if !tr.BrokeRule() {
			done++
		}
		if prev, ok := seen[tr.Config.Key()]; ok && tr.RetryOf == 0 && tr.Origin != "noise" && tr.Origin != "confirm" {
			t.Errorf("trials %d and %d measure the same config", prev, tr.Number)
		}
		seen[tr.Config.Key()] = tr.Number
	}
	if done != 14 {
		t.Errorf("%d finished trials, want exactly n_trials = 14", done)
	}
	for _, tr := range ts {
		if tr.State == store.Interrupted && retried[tr.Number] != 1 {
			t.Errorf("interrupted trial %d retried %d times, want once", tr.Number, retried[tr.Number])
		}
	}
}

// killParallelMidTrial SIGKILLs `run --workers 4` when a trial starts
// after minDone finished, and reports whether trials were left running.
func killParallelMidTrial(t *testing.T, bin, dir, space, db string, minDone int) bool {
	t.Helper()
	ts := killWhenTrialStarts(t, bin, dir, db, minDone, "run", "--workers", "4", space)
	return slices.ContainsFunc(ts, func(tr store.Trial) bool { return tr.State == store.Running })
}

// run --storage postgres://… runs the study as one worker of a shared
// study; a study.db path is not shared storage.
func TestRunWithPostgresStorage(t *testing.T) {
	url := pgtest.Start(t)
	abs := quickstartWithoutPrior(t)
	dir := t.TempDir()
	code, _, errText := runCLI(t, dir, "--log-level", "warn", "run", "--storage", url, "--workers", "2", "--n-trials", "6", abs)
	if code != 0 {
		t.Fatalf("run --storage: exit %d\n%s", code, errText)
	}
	code, out, errText := runCLI(t, dir, "show", "--storage", url, "--json", "quickstart")
	if code != 0 || !strings.Contains(out, `"worker"`) {
		t.Errorf("show --storage: exit %d %s\n%.300s", code, errText, out)
	}
	code, out, errText = runCLI(t, dir, "studies", "--storage", url)
	if code != 0 || !strings.Contains(out, "quickstart") || strings.Contains(out, "studies/") {
		t.Errorf("studies --storage: exit %d %s\n%s", code, errText, out)
	}
	code, _, errText = runCLI(t, dir, "run", "--storage", url, "--fresh", abs)
	if code != 2 {
		t.Errorf("run --storage --fresh: exit %d %s, want a usage error", code, errText)
	}
}

// [study] storage = "postgres://…" runs the study in shared storage with
// no flag or environment: nothing is written to a local study.db.
func TestStudyStorageKeyIsSharedStorage(t *testing.T) {
	url := pgtest.Start(t)
	t.Setenv(storageEnv, "")
	src, err := os.ReadFile("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "shared.toml")
	withURL := strings.Replace(string(src), "[study]\n", "[study]\nprior = \"none\"\nstorage = \""+url+"\"\n", 1)
	if err := os.WriteFile(file, []byte(withURL), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errText := runCLI(t, dir, "--log-level", "warn", "run", "--workers", "2", "--n-trials", "4", file)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errText)
	}
	if _, err := os.Stat(filepath.Join(dir, "studies", "quickstart", "study.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a local study.db was written (%v); the study is in PostgreSQL", err)
	}
	code, out, errText := runCLI(t, dir, "show", "--storage", url, "--json", "quickstart")
	if code != 0 || strings.Count(out, `"worker"`) < 4 {
		t.Errorf("show --storage: exit %d %s\n%.300s", code, errText, out)
	}
}

// Workers honour --repeat (each config measured exactly that often, never
// more however they race) and --budget (the whole study's device time);
// both used to be refused for shared storage.
func TestWorkerHonoursRepeatAndBudget(t *testing.T) {
	url := pgtest.Start(t)
	t.Setenv(storageEnv, url)
	src, err := os.ReadFile("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The prior's screening would dominate this test's time; it is not
	// what is tested here.
	study := func(name string) string {
		file := filepath.Join(t.TempDir(), name+".toml")
		text := strings.Replace(string(src), `name = "quickstart"`, "name = \""+name+"\"\nprior = \"none\"", 1)
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	type trial struct {
		Origin     string       `json:"origin"`
		State      string       `json:"state"`
		Config     space.Config `json:"config"`
		GPUSeconds float64      `json:"gpu_seconds"`
		ReusedFrom int          `json:"reused_from"`
	}
	read := func(name string) []trial {
		t.Helper()
		code, out, errText := runCLI(t, t.TempDir(), "show", "--json", name)
		if code != 0 {
			t.Fatalf("show: exit %d %s", code, errText)
		}
		var ts []trial
		if err := json.Unmarshal([]byte(out), &ts); err != nil {
			t.Fatal(err)
		}
		return ts
	}
	code, _, errText := runCLI(t, t.TempDir(), "--log-level", "warn", "worker", "--workers", "3", "--repeat", "2", "--n-trials", "8", study("repeated"))
	if code != 0 {
		t.Fatalf("worker --repeat: exit %d\n%s", code, errText)
	}
	measured := map[string]int{}
	for _, tr := range read("repeated") {
		if tr.State != "interrupted" && tr.ReusedFrom == 0 && tr.Origin != "baseline" {
			measured[tr.Config.Key()]++
		}
	}
	twice := 0
	for key, n := range measured {
		if n > 2 {
			t.Errorf("config %s measured %d times with --repeat 2", key, n)
		}
		if n == 2 {
			twice++
		}
	}
	if twice == 0 {
		t.Errorf("no config was measured twice with --repeat 2: %v", measured)
	}

	budget := 6 * time.Hour
	code, _, errText = runCLI(t, t.TempDir(), "--log-level", "warn", "worker", "--workers", "2", "--budget", budget.String(), "--n-trials", "20", study("budgeted"))
	if code != 0 {
		t.Fatalf("worker --budget: exit %d\n%s", code, errText)
	}
	spent, done := 0.0, 0
	for _, tr := range read("budgeted") {
		spent += tr.GPUSeconds
		if tr.State != "interrupted" {
			done++
		}
	}
	if done >= 20 || spent < budget.Seconds() {
		t.Errorf("with a %s budget the study finished %d of 20 trials spending %.1f GPU-hours; want it stopped by the budget", budget, done, spent/3600)
	}
}

// quickstartWithoutPrior is the quickstart with prior = "none": the
// prior's start-up screening would dominate tests of how workers share a
// study, which is not what they test.
func quickstartWithoutPrior(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "quickstart.toml")
	text := strings.Replace(string(src), "[study]\n", "[study]\nprior = \"none\"\n", 1)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
