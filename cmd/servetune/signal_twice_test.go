package main

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/objective"
)

// A second SIGTERM during a teardown that waits on an engine ignoring
// SIGTERM (its grace is 30 s) ends servetune at once, as a scheduler's
// "stop now" needs; the guardian then stops the engine and its workers.
func TestSecondSignalEndsTheTeardownAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and launches engine processes")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	o := enginetest.Options{IgnoreTerm: true, Workers: 1, PIDFile: pids, ITL: 10 * time.Millisecond}
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
	_ = cmd.Process.Signal(syscall.SIGTERM)
	until(func(l string) bool { return strings.Contains(l, "a second signal ends servetune at once") })
	sent := time.Now()
	_ = cmd.Process.Signal(syscall.SIGTERM)
	go func() {
		for sc.Scan() {
		}
	}()
	err = cmd.Wait()
	if took := time.Since(sent); took > 3*time.Second { // one second, with a margin for a loaded machine
		t.Errorf("servetune took %v to end on the second SIGTERM, want about a second", took)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("servetune ended with %v, want killed by the second SIGTERM", err)
	}
	// The guardian saw servetune's pipe close: SIGTERM (ignored), SIGKILL
	// after its grace (30 s). The engine and its worker are gone then; the
	// margin beyond the grace is for a loaded 2-core machine, where the
	// guardian's 50 ms polls and the kill's delivery queue behind the
	// other test binaries (40 s was once too tight in CI).
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, live := livePIDs(pids)
		if n == 2 && len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range live {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("engine processes %v (of %d recorded) outlived servetune by 60 s", live, n)
		}
		time.Sleep(50 * time.Millisecond) // polling other processes' exit
	}
}
