package launch

import (
	"syscall"
	"time"
)

const prSetChildSubreaper = 36 // linux/prctl.h

// becomeSubreaper makes orphaned descendants (a worker whose parent exited,
// a daemon that double-forked) re-parent to the guardian instead of init,
// so the teardown sweep still finds them by ancestry.
func becomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
}

// guardProcAttr starts the guardian in its own process group, which the
// engine joins, and sends it SIGHUP if servetune dies: belt and braces
// with the stdin pipe.
func guardProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGHUP}
}

// engineProcAttr keeps the engine in the guardian's group and kills its
// leader if the guardian itself is killed.
func engineProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// dieBy ends the process by sig with the kernel's default action. Go's
// runtime would turn a SIGSEGV or SIGABRT it did not ask for into a crash
// with exit status 2, so the action is reset behind its back, and core
// dumps are off: the engine already wrote one if it was going to.
func dieBy(sig syscall.Signal) {
	_ = syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{})
	resetSignal(sig)
	_ = syscall.Kill(syscall.Getpid(), sig)
	time.Sleep(time.Second) // delivery to some thread is asynchronous
}
