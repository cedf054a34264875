package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

func TestWaitReady(t *testing.T) {
	t.Run("ready after probes fail", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			n := 0
			probe := func(context.Context) bool { n++; return n == 5 }
			start := time.Now()
			r, err := waitReady(context.Background(), probe, nil, time.Second, time.Hour)
			if r != ready || err != nil || time.Since(start) != 4*time.Second {
				t.Fatalf("waitReady = %v, %v after %v; want ready after 4s", r, err, time.Since(start))
			}
		})
	})
	t.Run("startup timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Now()
			r, _ := waitReady(context.Background(), func(context.Context) bool { return false }, nil, time.Second, defaultStartupTimeout)
			if r != timedOut || time.Since(start) != defaultStartupTimeout {
				t.Fatalf("waitReady = %v after %v; want timeout after %v", r, time.Since(start), defaultStartupTimeout)
			}
		})
	})
	t.Run("process exit stops the wait at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			done := make(chan struct{})
			go func() { time.Sleep(90 * time.Second); close(done) }()
			start := time.Now()
			r, _ := waitReady(context.Background(), func(context.Context) bool { return false }, done, 10*time.Second, time.Hour)
			if r != exited || time.Since(start) != 90*time.Second {
				t.Fatalf("waitReady = %v after %v; want exited after 90s", r, time.Since(start))
			}
		})
	})
	t.Run("cancel", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			_, err := waitReady(ctx, func(context.Context) bool { return false }, nil, time.Second, time.Hour)
			if err != context.DeadlineExceeded {
				t.Fatalf("waitReady = %v; want the context's error", err)
			}
		})
	})
}

func TestCappedLogKeepsTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.log")
	l, err := openCappedLog(path, 4096)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		fmt.Fprintf(l, "line %04d of the engine's chatter\n", i)
	}
	l.Close()
	b, _ := os.ReadFile(path)
	if len(b) > 4096 {
		t.Errorf("log is %d bytes; cap 4096", len(b))
	}
	s := string(b)
	if !strings.HasPrefix(s, "[servetune: ") || !strings.HasSuffix(s, "line 0999 of the engine's chatter\n") {
		t.Errorf("log lost its tail or the cut marker:\n%s", s)
	}
	for _, line := range strings.Split(strings.TrimSpace(s), "\n")[1:] {
		if !strings.HasPrefix(line, "line ") || !strings.HasSuffix(line, "chatter") {
			t.Fatalf("torn line %q", line)
		}
	}
	if got := tailLines(strings.NewReader(s), int64(len(s)), 2); len(got) != 2 || got[1] != "line 0999 of the engine's chatter" {
		t.Errorf("tailLines = %q", got)
	}
}

// A version command that forks a child holding its output (a prefix
// such as srun or docker run, a launcher script) is bounded by its
// context and leaves nothing running: the whole group is killed.
func TestVersionCommandLeavesNoProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	pidFile := filepath.Join(t.TempDir(), "child")
	script := `echo "tool version 1.2.3"; trap "" TERM; sleep 300 & echo $! > "$1"; wait`
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(pidFile); len(b) > 0 {
				cancel() // a signal while the command runs
				return
			}
			time.Sleep(10 * time.Millisecond) // polling a file the script writes
		}
	}()
	done := make(chan string, 1)
	go func() { done <- engineVersion(ctx, []string{"/bin/sh", "-c", script, "sh", pidFile}, nil) }()
	select {
	case v := <-done:
		if v != "1.2.3" {
			t.Errorf("version %q, want what it printed before the signal, 1.2.3", v)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the version command still held servetune 30 s after the signal")
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// SIGKILL was sent before engineVersion returned; its delivery may
	// take a moment on a loaded machine.
	for deadline := time.Now().Add(5 * time.Second); slices.ContainsFunc(readProcs(), func(p proc) bool { return p.pid == pid && p.live }); {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the version command's child %d outlived it", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling another process's exit
	}
}
