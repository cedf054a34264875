//go:build unix

package search

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the CPU time this process has used (user and system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time used since from per operation, in ms:
// on a machine shared with other work, ns/op (wall time) counts their
// turns too.
func reportCPU(b *testing.B, from time.Duration) {
	b.ReportMetric(float64(processCPU()-from)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
