package launch

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// sysProcAttr puts the engine in its own process group, so teardown can
// signal every worker it forks, and asks the kernel to kill it if
// servetune dies without tearing down (belt and braces: the pidfile
// reaper covers what Pdeathsig misses, e.g. processes that re-parent).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// setupProcAttr puts a setup step in the engine's group pgid.
func setupProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid, Pdeathsig: syscall.SIGKILL}
}

// groupAlive reports whether any non-zombie process is in group pgid. A
// zombie holds its pgid until reaped, and in containers without an init
// nobody may reap orphans, so kill(-pgid, 0) alone would never say "gone".
func groupAlive(pgid int) bool {
	for _, p := range readProcs() {
		if p.pgid == pgid && p.live {
			return true
		}
	}
	return false
}

// readProcs lists every process the kernel shows in /proc.
func readProcs() []proc {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	out := make([]proc, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // exited since the glob
		}
		st, ok := parseStat(string(b))
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if ok && err == nil {
			out = append(out, proc{pid: pid, ppid: st.ppid, pgid: st.pgrp, live: st.state != "Z" && st.state != "X"})
		}
	}
	return out
}

type procStat struct {
	state     string
	ppid      int
	pgrp      int
	startTime uint64
}

// parseStat reads /proc/PID/stat; the command name may contain spaces and
// parentheses, so fields are counted from the last ')'.
func parseStat(s string) (procStat, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return procStat{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return procStat{state: f[0], ppid: ppid, pgrp: pgrp, startTime: start}, true
}

// processStart identifies a process instance: PIDs are reused, (PID, start
// time) pairs are not.
func processStart(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	st, ok := parseStat(string(b))
	if !ok || st.state == "Z" {
		return 0, false
	}
	return st.startTime, true
}
