package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/objective"
)

// A second SIGTERM during a teardown that would wait on an engine ignoring
// SIGTERM (servetune's grace is 30 s) ends servetune at once, exit 130,
// and leaves no process of the engine behind: not its leader, its worker,
// the worker that left the group with setsid, nor the guardian.
func TestSecondSignalKillsTheEnginesAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and launches engine processes")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	o := enginetest.Options{IgnoreTerm: true, Workers: 2, Setsid: true, PIDFile: pids, ITL: 10 * time.Millisecond}
	cmd := exec.Command(bin, "--log-format", "json", "--log-level", "debug", "run", fakeStudy{name: "twice", opts: o, outputLen: 1024, prompts: 16}.write(t, dir))
	cmd.Dir = dir
	logs, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(logs)
	until := func(match func(string) bool) {
		for sc.Scan() {
			if match(sc.Text()) {
				return
			}
		}
		t.Fatal("servetune's log ended before the line the test waits for")
	}
	until(func(l string) bool {
		var ev struct{ Message, Phase string }
		return json.Unmarshal([]byte(l), &ev) == nil && ev.Message == "trial phase" && ev.Phase == string(objective.Benchmarking)
	})
	pgids := enginePGIDs(t, filepath.Join(dir, "studies", "twice"))
	if len(pgids) != 1 {
		t.Fatalf("engine groups %v, want one", pgids)
	}
	// The workers record themselves as they start, maybe after the
	// benchmark did on a loaded machine.
	for deadline := time.Now().Add(10 * time.Second); ; {
		n, live := livePIDs(pids)
		if n == 3 && len(live) == 3 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			killAll(pids, pgids[0])
			t.Fatalf("before the signals: %d engine processes recorded, %v running; want 3 and 3", n, live)
		}
		time.Sleep(10 * time.Millisecond) // polling a file other processes write
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	until(func(l string) bool { return strings.Contains(l, "a second signal kills them at once") })
	_ = cmd.Process.Signal(syscall.SIGTERM)
	sent := time.Now()
	var tail []string
	exited := make(chan error, 1)
	go func() {
		for sc.Scan() {
			tail = append(tail, sc.Text())
		}
		exited <- cmd.Wait()
	}()
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second): // a deadline on the wait, far below the 30 s grace
		killAll(pids, pgids[0])
		t.Fatal("servetune was still running 10 s after the second SIGTERM")
	}
	t.Logf("servetune ended %v after the second SIGTERM", time.Since(sent).Round(time.Millisecond))
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("servetune ended with %v, want exit code 130; its last lines: %q", err, tail)
	}
	if !strings.Contains(strings.Join(tail, "\n"), "engines killed") {
		t.Errorf("servetune did not say it killed the engines: %q", tail)
	}
	// Checked at once: servetune exits only when they are gone.
	if _, live := livePIDs(pids); len(live) > 0 || len(liveInGroup(pgids[0])) > 0 {
		killAll(pids, pgids[0])
		t.Fatalf("engine processes %v and group %d's %v outlived servetune", live, pgids[0], liveInGroup(pgids[0]))
	}
}

func killAll(pids string, pgid int) {
	_, live := livePIDs(pids)
	for _, pid := range live {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// The guardian's stdout and stderr are a pipe to servetune. Once
// servetune is gone nobody reads it, and a guardian that wrote there on a
// stop signal died of SIGPIPE before its teardown, leaving the engine's
// workers running (the withdrawn second-signal exit failed so). A
// guardian whose pipe is broken still stops its whole group.
func TestGuardianOutlivesItsBrokenLogPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and launches processes")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	bin := buildBinary(t)
	pidFile := filepath.Join(t.TempDir(), "worker")
	// The engine and its worker ignore SIGTERM (an ignored signal is
	// inherited); only the guardian's SIGKILL after its grace ends them.
	script := `trap "" TERM; sleep 300 & echo $! > "$1"; wait`
	g := exec.Command(bin, "guard", "--grace", "1s", "--", "/bin/sh", "-c", script, "sh", pidFile)
	g.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	lifeline, err := g.StdinPipe() // held open: servetune "alive" for the guardian
	if err != nil {
		t.Fatal(err)
	}
	defer lifeline.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	g.Stdout, g.Stderr = w, w
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r.Close() // the pipe's reader is gone, as a dead servetune's is
	defer syscall.Kill(-g.Process.Pid, syscall.SIGKILL)
	worker := 0
	for deadline := time.Now().Add(10 * time.Second); worker == 0; {
		b, _ := os.ReadFile(pidFile)
		worker, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Now().After(deadline) {
			t.Fatal("the engine's worker never recorded its PID")
		}
		time.Sleep(10 * time.Millisecond) // polling a file another process writes
	}
	_ = syscall.Kill(g.Process.Pid, syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- g.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the guardian did not end 20 s after SIGTERM (its grace is 1 s)")
	}
	if ws := g.ProcessState.Sys().(syscall.WaitStatus); ws.Signaled() && ws.Signal() == syscall.SIGPIPE {
		t.Errorf("the guardian died of SIGPIPE (%v)", err)
	}
	if st, err := os.ReadFile("/proc/" + strconv.Itoa(worker) + "/stat"); err == nil {
		if live, _ := liveState(string(st)); live {
			_ = syscall.Kill(worker, syscall.SIGKILL)
			t.Fatalf("the engine's worker %d outlived its guardian", worker)
		}
	}
}
