//go:build unix && !linux

package launch

import (
	"errors"
	"syscall"
	"time"
)

func becomeSubreaper() error { return errors.New("no child subreaper outside Linux") }

func guardProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func engineProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

func dieBy(sig syscall.Signal) {
	resetSignal(sig)
	_ = syscall.Kill(syscall.Getpid(), sig)
	time.Sleep(time.Second) // delivery to some thread is asynchronous
}
