package cputime

import (
	"testing"
	"time"
)

// Report reports the CPU time used since from per operation, in ms, as
// the benchmark's cpu-ms/op.
func Report(b *testing.B, from time.Duration) {
	b.ReportMetric(float64(Process()-from)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
