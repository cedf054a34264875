//go:build linux && (amd64 || arm64)

package launch

import (
	"syscall"
	"unsafe"
)

// resetSignal sets sig's kernel action to SIG_DFL. On amd64 and arm64 the
// kernel's struct sigaction is handler, flags, restorer, mask; all zero is
// SIG_DFL with no flags and an empty mask.
func resetSignal(sig syscall.Signal) {
	var act [4]uintptr
	_, _, _ = syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0)
}
