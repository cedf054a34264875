package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/studies/store"
)

// A second `run` of a running study, with or without --fresh, refuses at
// once naming the holder and touches nothing; `show` keeps working; the
// first run finishes its budget undisturbed.
func TestSecondRunOfALiveStudyIsRefused(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	space := faultSpace(t, dir, enginetest.Options{StartupDelay: 2 * time.Second}, "")
	first := exec.Command(bin, "--log-format", "json", "run", "--no-prune", space)
	first.Dir = dir
	var firstOut strings.Builder
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	waitForLock(t, filepath.Join(dir, "studies", "faults", "lock"), first.Process.Pid)

	for _, args := range [][]string{{"run", space}, {"run", "--fresh", space}} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitLocked || !strings.Contains(string(out), "pid "+strconv.Itoa(first.Process.Pid)) {
			t.Errorf("%v: exit %d, want %d naming pid %d:\n%s", args, code, exitLocked, first.Process.Pid, out)
		}
	}
	show := exec.Command(bin, "show", "faults")
	show.Dir = dir
	if out, err := show.CombinedOutput(); err != nil {
		t.Errorf("show during a run: %v\n%s", err, out)
	}
	if err := first.Wait(); err != nil {
		t.Fatalf("the first run failed: %v\n%s", err, firstOut.String())
	}
	ts := readTrials(t, filepath.Join(dir, "studies", "faults", "study.db"))
	complete := 0
	for _, tr := range ts {
		if tr.State == store.Complete {
			complete++
		} else {
			t.Errorf("trial %d: %s %s", tr.Number, tr.State, tr.Why())
		}
	}
	if len(ts) != 2 || complete != 2 {
		t.Errorf("first run stored %d trials (%d complete), want exactly its 2", len(ts), complete)
	}
}

// waitForLock polls until the study's lock file names pid.
func waitForLock(t *testing.T, path string, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), `"pid":`+strconv.Itoa(pid)) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never named pid %d", path, pid)
}
