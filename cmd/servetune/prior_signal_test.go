package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"github.com/servetune/servetune/objective/simprior"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// priorLines reads the study's kept prior predictions (header aside).
func priorLines(t *testing.T, studyDir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(studyDir, simprior.File))
	if err != nil {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines = lines[:len(lines)-1] // a line being written
	}
	if len(lines) < 2 {
		return nil
	}
	return lines[1:]
}

// SIGTERM during the simulator prior's start-up screening ends servetune
// at once (exit 130, nothing measured) instead of after the screening: the
// screening stops between configs. What was screened stays with the study,
// and the resumed run keeps it and starts its first trial without screening
// the space again.
func TestSignalDuringPriorScreening(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	space, err := filepath.Abs("../../examples/quickstart.toml")
	if err != nil {
		t.Fatal(err)
	}
	studyDir := filepath.Join(dir, "studies", "quickstart")
	cmd := exec.Command(bin, "--log-format", "json", "--log-level", "debug", "run", "--n-trials", "1", space)
	cmd.Dir = dir
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	waitLog(t, logs, "the prior screens the space")
	go func() { _, _ = bufio.NewReader(logs).WriteTo(new(bytes.Buffer)) }() // servetune must never block on stderr
	// The screening is under way once it has kept its first predictions.
	for deadline := time.Now().Add(60 * time.Second); len(priorLines(t, studyDir)) < 16; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the prior kept no prediction within 60 s")
		}
	}
	sent := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	took := time.Since(sent)
	t.Logf("exit %v after SIGTERM, %d predictions kept", took, len(priorLines(t, studyDir)))
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Fatalf("servetune exited with %v, want code %d", err, exitInterrupted)
	}
	// The guarantee is one second; the margin is for a loaded CI machine.
	if took > 5*time.Second {
		t.Errorf("servetune took %v to act on SIGTERM during the screening, want about a second", took)
	}
	kept := priorLines(t, studyDir)
	if len(kept) >= 512 {
		t.Fatalf("%d predictions kept: the signal landed after the screening, not during it", len(kept))
	}
	if ts := readTrials(t, filepath.Join(studyDir, "study.db")); len(ts) != 0 {
		t.Errorf("%d trials after a signal during the screening, want none", len(ts))
	}
	resumeKeepsTheScreening(t, bin, dir, space, studyDir, kept)
}

// resumeKeepsTheScreening runs the study again: the earlier predictions
// are kept, not redone, and a third run with nothing changed screens
// nothing anew before its first trial.
func resumeKeepsTheScreening(t *testing.T, bin, dir, space, studyDir string, kept []string) {
	t.Helper()
	run := func(trials string) {
		cmd := exec.Command(bin, "run", "--n-trials", trials, space)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("resume: %v\n%s", err, out)
		}
	}
	run("1")
	after := priorLines(t, studyDir)
	if len(after) < len(kept) || strings.Join(after[:len(kept)], "") != strings.Join(kept, "") {
		t.Fatalf("the resumed run did not keep the %d predictions made before the signal", len(kept))
	}
	for _, l := range after[len(kept):] {
		for _, k := range kept {
			if sameConfig(l, k) {
				t.Fatalf("the resumed run predicted again a config it had: %s", l)
			}
		}
	}
	run("2")
	again := priorLines(t, studyDir)
	// The second trial's proposal screens a few configs (8 and their
	// neighbours); a new start-up would screen 512.
	if n := len(again) - len(after); n > 128 {
		t.Errorf("a resume with nothing changed made %d new predictions, want only its proposal's few", n)
	}
}

// sameConfig reports whether two kept lines predict the same config the
// same way (kind and config).
func sameConfig(a, b string) bool {
	var x, y struct {
		Kind   string          `json:"kind"`
		Config json.RawMessage `json:"config"`
	}
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil &&
		x.Kind == y.Kind && bytes.Equal(x.Config, y.Config)
}

// waitLog reads JSON log lines until one has the message.
func waitLog(t *testing.T, logs interface{ Read([]byte) (int, error) }, msg string) {
	t.Helper()
	sc := bufio.NewScanner(logs)
	for sc.Scan() {
		var ev struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Message == msg {
			return
		}
	}
	t.Fatalf("the log never said %q", msg)
}
