//go:build unix

package preflight

import "syscall"

// writable asks the kernel whether the process may create files in dir
// (access(2) with W_OK), which writes nothing.
func writable(dir string) error {
	const wOK = 2
	return syscall.Access(dir, wOK)
}
