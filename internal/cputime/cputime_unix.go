//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time this process has used so far (user + system,
// every thread: the garbage collector's work is the measured code's cost
// too); 0 where the system cannot say.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PeakRSSMB is the process's peak resident set so far, in MB (Linux
// reports ru_maxrss in KiB); 0 where the system cannot say.
func PeakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) * 1024 / 1e6
}
