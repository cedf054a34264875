package launch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/engines/launch"
)

func guarded(t *testing.T) *launch.Launcher {
	l := launcher(t)
	l.Guard = enginetest.Guard()
	return l
}

// recordedPIDs polls the fake's PID file until n processes have written
// their "PID PGID" line, and returns pid → pgid.
func recordedPIDs(t *testing.T, path string, n int) map[int]int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		got := map[int]int{}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(line)
			if len(f) == 2 {
				pid, _ := strconv.Atoi(f[0])
				pgid, _ := strconv.Atoi(f[1])
				got[pid] = pgid
			}
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d processes recorded their PIDs", len(got), n)
		}
		time.Sleep(10 * time.Millisecond) // polling a file another process writes
	}
}

// alive reports whether pid is a running (non-zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// When servetune dies, the guardian sees its stdin close and stops the
// engine, its workers, and a worker that left the group with setsid.
func TestGuardianStopsEverythingWhenServetuneDies(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	l := guarded(t)
	pidFile := filepath.Join(t.TempDir(), "pids")
	s := startReady(t, l, "vllm", enginetest.Options{Workers: 3, Setsid: true, PIDFile: pidFile}, nil)
	pids := recordedPIDs(t, pidFile, 4)
	escaped := 0
	for pid, pgid := range pids {
		if pgid != s.PGID {
			escaped++
		}
		if !alive(pid) {
			t.Fatalf("process %d died before servetune did", pid)
		}
	}
	if escaped != 1 {
		t.Fatalf("%d processes outside the engine group %d, want the setsid worker: %v", escaped, s.PGID, pids)
	}
	launch.CutLifeline(s)
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the guardian did not exit after servetune went away")
	}
	for pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived servetune", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// The guardian's exit is the engine's: the same exit code, or death by
// the same signal, so failures are described and classified alike.
func TestGuardianPropagatesTheEnginesEnd(t *testing.T) {
	cases := []struct {
		name string
		o    enginetest.Options
		sig  syscall.Signal // sent to the engine leader, 0 for none
		want string
	}{
		{"exit code", enginetest.Options{Mode: enginetest.Crash}, 0, "(exit status 139)"},
		{"SIGKILL", enginetest.Options{Mode: enginetest.Hang}, syscall.SIGKILL, "killed by SIGKILL"},
		{"SIGHUP", enginetest.Options{Mode: enginetest.Hang}, syscall.SIGHUP, "(killed by signal hangup)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "pids")
			c.o.PIDFile = pidFile
			s := start(t, guarded(t), "sglang", c.o, nil)
			if c.sig != 0 {
				for pid := range recordedPIDs(t, pidFile, 1) {
					_ = syscall.Kill(pid, c.sig)
				}
			}
			<-s.Done()
			if f := s.Failure(engines.Starting); !strings.Contains(f.Message, c.want) {
				t.Errorf("failure %q; want it to say %q", f.Message, c.want)
			}
		})
	}
}

// cpuHogs keeps every core busy until the test ends, as a loaded machine
// does (the fault runs that found a guardian still alive 2 s after a
// kill -9 ran on one).
func cpuHogs(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	for range 2 * runtime.NumCPU() {
		go func() {
			for ctx.Err() == nil {
			}
		}()
	}
}

// On a loaded machine, the guardian's teardown (servetune's SIGTERM to
// the group) also reaches a process born after its first signal (here a
// helper the engine's SIGTERM handler starts in a session of its own): it
// gets the signal at the next poll, and everything is gone long before
// the grace period would have ended it.
func TestGuardianTeardownUnderLoadReachesLatecomers(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	l := guarded(t)
	l.Grace = 20 * time.Second
	pidFile := filepath.Join(t.TempDir(), "pids")
	s := startReady(t, l, "vllm", enginetest.Options{Workers: 2, ForkOnTerm: true, PIDFile: pidFile}, nil)
	recordedPIDs(t, pidFile, 3)
	cpuHogs(t)
	cut := time.Now()
	_ = syscall.Kill(-s.PGID, syscall.SIGTERM) // as servetune's teardown
	// The bound is half the grace period: a latecomer left to it would
	// live until the grace ends.
	select {
	case <-s.Done():
	case <-time.After(l.Grace / 2):
		t.Fatalf("the guardian was still tearing down %v after the stop signal", time.Since(cut))
	}
	t.Logf("teardown took %v under load", time.Since(cut))
	pids := recordedPIDs(t, pidFile, 4) // the helper recorded itself too
	for pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived servetune", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// Live.Kill (servetune's second signal) ends, within its bound, an engine
// that ignores SIGTERM under its guardian: the leader, its workers, the
// worker that called setsid, and the guardian; and no engine starts after.
func TestLiveKillEndsEveryEngineAtOnce(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	l := guarded(t)
	l.Live = &launch.Live{}
	l.Grace = time.Minute // a teardown would wait for it; Kill must not
	pidFile := filepath.Join(t.TempDir(), "pids")
	o := enginetest.Options{IgnoreTerm: true, Workers: 2, Setsid: true, PIDFile: pidFile}
	s := startReady(t, l, "vllm", o, nil)
	pids := recordedPIDs(t, pidFile, 3)
	// The wait is a third of the grace, not servetune's 1 s: SIGKILLed
	// processes take longer than that to be gone on a loaded machine
	// (load 30 on 2 cores), and what this tells apart is Kill from a
	// teardown, which would wait the whole grace.
	if left := l.Live.Kill(l.Grace / 3); len(left) != 0 {
		t.Fatalf("groups %v still had live processes after Kill", left)
	}
	for pid := range pids {
		if alive(pid) {
			t.Errorf("engine process %d outlived Kill", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if alive(s.PGID) {
		t.Errorf("the guardian %d outlived Kill", s.PGID)
	}
	tgt := enginetest.Target("vllm", "org/model", o)
	if _, err := l.Start(context.Background(), nil, tgt, t.TempDir()); !errors.Is(err, context.Canceled) {
		t.Errorf("a launch after Kill: %v, want a cancellation", err)
	}
}

// When servetune dies (kill -9: its end of the guardian's stdin closes)
// the guardian SIGKILLs the engine at once, on a loaded machine too: an
// engine that ignores SIGTERM, with a minute's grace, is gone with its
// workers and the worker that called setsid long before the grace, which
// the old teardown (SIGTERM, SIGKILL after the grace) waited for. The
// bound is the event's, not the machine's speed: a tenth of the grace.
func TestOrphanedGuardianKillsTheEngineAtOnce(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	l := guarded(t)
	l.Grace = 5 * time.Minute
	pidFile := filepath.Join(t.TempDir(), "pids")
	s := startReady(t, l, "vllm", enginetest.Options{IgnoreTerm: true, Workers: 2, Setsid: true, PIDFile: pidFile}, nil)
	pids := recordedPIDs(t, pidFile, 3)
	cpuHogs(t)
	cut := time.Now()
	launch.CutLifeline(s)
	select {
	case <-s.Done():
	case <-time.After(l.Grace / 10):
		t.Fatalf("the engine still ran %v after servetune went away: the guardian waited for a grace nobody needs", time.Since(cut))
	}
	t.Logf("engine gone %v after servetune went away, under load", time.Since(cut))
	for pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived servetune", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
