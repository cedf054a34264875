package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/servetune/servetune/studies/store"
)

func readTrials(t *testing.T, db string) []store.Trial {
	t.Helper()
	st, err := store.Open(context.Background(), db, store.ReadOnly)
	if err != nil {
		return nil
	}
	defer st.Close()
	ts, _ := st.Trials(context.Background())
	return ts
}

// killMidTrial starts a run and SIGKILLs it the moment its log says a
// trial started (the row is committed as running before the log line)
// after at least minDone finished ones. It reports whether the kill left a
// trial RUNNING, i.e. landed mid-trial.
func killMidTrial(t *testing.T, bin, dir, space, db string, minDone int) bool {
	t.Helper()
	ts := killWhenTrialStarts(t, bin, dir, db, minDone, "run", space)
	return len(ts) > 0 && ts[len(ts)-1].State == store.Running
}

// killUntilMidTrial kills a study (kill, after ever more finished trials)
// until one kill lands mid-trial, at most five times.
func killUntilMidTrial(t *testing.T, kill func(minDone int) bool) {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		if kill(3 + attempt) {
			return
		}
	}
	t.Fatal("never managed to kill the study mid-trial in 5 attempts")
}

// killWhenTrialStarts runs servetune with args, SIGKILLs it when a trial
// starts after minDone finished ones, and returns the study's trials.
func killWhenTrialStarts(t *testing.T, bin, dir, db string, minDone int, args ...string) []store.Trial {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--log-format", "json"}, args...)...)
	cmd.Dir = dir
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(logs)
	for sc.Scan() {
		var ev struct {
			Message string `json:"message"`
			Done    int    `json:"done"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Message == "trial started" && ev.Done >= minDone {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	_ = cmd.Wait()
	return readTrials(t, db)
}

func TestSIGKILLMidTrialThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	space, _ := filepath.Abs("testdata/kill.toml")
	db := filepath.Join(dir, "studies", "kill", "study.db")
	killUntilMidTrial(t, func(minDone int) bool { return killMidTrial(t, bin, dir, space, db, minDone) })
	cmd := exec.Command(bin, "--log-format", "json", "run", space)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	ts := readTrials(t, db)
	numbers := map[int]bool{}
	done, interrupted := 0, 0
	retried := map[int]int{}
	for _, tr := range ts {
		if numbers[tr.Number] {
			t.Fatalf("duplicate trial number %d", tr.Number)
		}
		numbers[tr.Number] = true
		if tr.State == store.Running {
			t.Errorf("trial %d left running", tr.Number)
		}
		if tr.State == store.Interrupted {
			interrupted++
			continue
		}
		if tr.RetryOf != 0 {
			retried[tr.RetryOf]++
		}
		if !tr.BrokeRule() {
			done++
		}
	}
	if done != 14 {
		t.Errorf("%d finished trials, want exactly n_trials = 14", done)
	}
	if interrupted == 0 {
		t.Fatal("the killed trial is not recorded as interrupted")
	}
	for _, tr := range ts {
		if tr.State == store.Interrupted && retried[tr.Number] != 1 {
			t.Errorf("interrupted trial %d retried %d times, want once", tr.Number, retried[tr.Number])
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "studies", "kill", "study.db")); err != nil {
		t.Fatal(err)
	}
}
