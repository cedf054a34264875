//go:build unix && !linux

package launch

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func setupProcAttr(pgid int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
}

// groupAlive cannot tell zombies apart without /proc; kill(2) with signal 0
// is the portable test.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// processStart is unknown off Linux; the reaper then trusts the pidfile.
func processStart(pid int) (uint64, bool) {
	if syscall.Kill(pid, 0) != nil {
		return 0, false
	}
	return 0, true
}

// readProcs has no /proc to read; the guardian then signals the leader
// only and servetune's group signal does the rest.
func readProcs() []proc { return nil }
