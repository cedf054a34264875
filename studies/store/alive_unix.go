//go:build unix

package store

import (
	"errors"
	"syscall"
)

// pidAlive says whether a process of this host exists (EPERM: it does,
// as another user's).
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
