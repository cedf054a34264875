package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servetune/servetune/engines/enginetest"
)

// fakeEngineSpace is a study whose engine is this test binary faking a
// vLLM that forks tensor-parallel workers, one of which leaves the group
// with setsid; each records "PID PGID" in pids. Its completions are slow
// enough that the benchmark is still running when servetune is killed.
// It ignores SIGTERM: only a SIGKILL ends it before the grace period.
func fakeEngineSpace(t *testing.T, dir, pids string) string {
	o := enginetest.Options{Workers: 3, Setsid: true, PIDFile: pids, ITL: 10 * time.Millisecond, IgnoreTerm: true}
	return fakeStudy{name: "guard", opts: o, outputLen: 1024, prompts: 16}.write(t, dir)
}

// liveState says whether the /proc/PID/stat text is of a running process
// and gives its process group.
func liveState(stat string) (live bool, pgid int) {
	f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	if len(f) < 3 {
		return false, 0
	}
	pgid, _ = strconv.Atoi(f[2])
	return f[0] != "Z" && f[0] != "X", pgid
}

// liveInGroup lists the running members of process group pgid; the
// guardian killed with servetune may linger as a zombie nobody reaps.
func liveInGroup(pgid int) []int {
	var out []int
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if live, pg := liveState(string(b)); live && pg == pgid {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			out = append(out, pid)
		}
	}
	return out
}

// livePIDs lists which of the "PID PGID" lines in path name a process
// that is still running (zombies waiting for a reaper do not count).
func livePIDs(path string) (recorded int, live []int) {
	b, _ := os.ReadFile(path)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		recorded++
		pid, _ := strconv.Atoi(f[0])
		if st, err := os.ReadFile("/proc/" + f[0] + "/stat"); err == nil {
			if ok, _ := liveState(string(st)); ok {
				live = append(live, pid)
			}
		}
	}
	return recorded, live
}

// kill -9 of servetune while the engine serves the benchmark takes the
// engine, its workers and the worker that called setsid along, without
// another servetune run to reap them: the guardian SIGKILLs them on the
// event (its stdin's end-of-file), not after the grace period an engine
// ignoring SIGTERM would otherwise get. The bound (10 s, a third of the
// 30 s grace) tells the two apart on any machine; the figure under load
// (well under 2 s) is measured in docs/benchmarks.md.
func TestKill9TakesTheEngineAlong(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and launches engine processes")
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	cmd := exec.Command(bin, "--log-format", "json", "--log-level", "debug", "run", fakeEngineSpace(t, dir, pids))
	cmd.Dir = dir
	sc := startLogged(t, cmd)
	var pgids []int
	if untilBenchmarking(sc) {
		pgids = enginePGIDs(t, filepath.Join(dir, "studies", "guard"))
	}
	if n, live := awaitPIDs(pids, 4); n != 4 || len(live) != 4 || len(pgids) != 1 {
		_ = cmd.Process.Kill()
		t.Fatalf("before the kill: %d processes recorded, %v running, engine groups %v; want 4, 4 and one", n, live, pgids)
	}
	killed := time.Now()
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	deadline := killed.Add(10 * time.Second)
	for {
		_, live := livePIDs(pids)
		group := liveInGroup(pgids[0])
		if len(live) == 0 && len(group) == 0 {
			t.Logf("engine group gone %v after kill -9 of servetune", time.Since(killed).Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range live {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			_ = syscall.Kill(-pgids[0], syscall.SIGKILL)
			t.Fatalf("10 s after kill -9 of servetune, engine processes %v are running; engine group %d: %v", live, pgids[0], group)
		}
		time.Sleep(20 * time.Millisecond) // polling other processes' exit
	}
}

// awaitPIDs waits until want processes recorded themselves in path (an
// engine's workers record theirs as they start, which on a loaded
// machine can come after the benchmark began), at most a minute.
func awaitPIDs(path string, want int) (recorded int, live []int) {
	deadline := time.Now().Add(time.Minute)
	for {
		recorded, live = livePIDs(path)
		if recorded >= want || time.Now().After(deadline) {
			return recorded, live
		}
		time.Sleep(20 * time.Millisecond) // polling other processes' start
	}
}
