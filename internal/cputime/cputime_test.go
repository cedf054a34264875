package cputime

import (
	"runtime"
	"testing"
)

// Spinning the CPU moves the process's CPU time forward; on a system
// where it cannot be read, it stays 0 rather than reading garbage.
func TestProcessCountsWork(t *testing.T) {
	from := Process()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i % 7
	}
	runtime.KeepAlive(x)
	got := Process() - from
	if runtime.GOOS == "linux" && got <= 0 {
		t.Fatalf("CPU time moved %v over a busy loop", got)
	}
	if got < 0 {
		t.Fatalf("CPU time went back %v", got)
	}
	if runtime.GOOS == "linux" && PeakRSSMB() <= 0 {
		t.Fatalf("peak RSS %v MB", PeakRSSMB())
	}
}
