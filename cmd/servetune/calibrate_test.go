package main

import (
	"math"
	"testing"
)

// A reality with 25% less bandwidth efficiency and twice the NVLink: the
// fit finds factors that reproduce it and its error falls to ~0.
func TestFitScalesRecoversTheFactors(t *testing.T) {
	measured := []float64{100, 200, 300, 400}
	// Throughput follows bandwidth for the first two configs and NVLink
	// for the others; compute does not matter.
	eval := func(f scales) []float64 {
		return []float64{
			100 * f[0] / 0.75, 200 * f[0] / 0.75,
			300 * math.Sqrt(f[2]/1.96), 400 * math.Sqrt(f[2]/1.96),
		}
	}
	before := logError(eval(scales{1, 1, 1}), measured)
	fit := fitScales(eval, measured)
	after := logError(eval(fit), measured)
	if !(after < before/4) || math.Abs(fit[0]-0.75) > 0.1 || math.Abs(fit[2]-1.96) > 0.3 {
		t.Errorf("fit %v: error %.3f → %.3f; want bandwidth ≈0.75, NVLink ≈1.96", fit, before, after)
	}
}

func TestLogErrorCountsRefusalsAsLarge(t *testing.T) {
	if got := logError([]float64{math.NaN(), 10}, []float64{10, 10}); got != 2.5 {
		t.Errorf("mean error with a refusal = %v, want 2.5", got)
	}
	if got := logError([]float64{20, 10}, []float64{10, 10}); math.Abs(got-math.Log(2)/2) > 1e-12 {
		t.Errorf("mean error = %v, want ln2/2", got)
	}
}
