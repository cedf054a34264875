package modelfree

import (
	"math"
	"testing"
)

// readOOM reads whatever an engine printed: whatever the text, its advice
// is a direction in {-1, 0, 1} and a finite, non-negative shortfall, so
// a garbled log can mislead the memory model at most by a direction,
// never poison it with NaN or infinities.
func FuzzReadOOM(f *testing.F) {
	for _, s := range []string{
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.81 GiB of which 0 bytes is free.",
		"CUDA out of memory. Tried to allocate 512.00 MiB. GPU 3 has a total capacity of 79.11 GiB of which 301.19 MiB is free.",
		"ValueError: Free memory on device (70.1/79.2 GiB) on startup is less than desired GPU memory utilization (0.95, 75.2 GiB).",
		"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
		"Tried to allocate . GiB. GPU 0 has a total capacity of ..  GiB of which 9999999999999999999999999999999999999999999 MiB is free",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		a := readOOM(msg)
		if a.dir < -1 || a.dir > 1 {
			t.Fatalf("dir %d", a.dir)
		}
		for name, x := range map[string]float64{"short": a.short, "want": a.want, "free": a.free, "total": a.total} {
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				t.Fatalf("%s = %v for %q", name, x, msg)
			}
		}
		if g, ok := a.outsideGiB(0.9); ok && (math.IsNaN(g) || math.IsInf(g, 0)) {
			t.Fatalf("outside %v for %q", g, msg)
		}
	})
}
