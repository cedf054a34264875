package prior

import (
	"math"
	"testing"
)

func TestTwinSpread(t *testing.T) {
	const prior = 0.03 * 0.03 // the prior's own miss beyond the noise
	for _, c := range []struct {
		name   string
		groups [][]twinMean
		cv     float64
		want   float64
	}{
		{"no twins measured: the belief", nil, 0.05, prior},
		{"groups of one say nothing", [][]twinMean{{{0, 1}}, {{0.3, 1}}}, 0.05, prior},
		{"twins that agree exactly shrink the belief", [][]twinMean{{{0, 1}, {0, 1}}}, 0.05, 2 * prior / 3},
		{"twins within the noise: their spread is the noise's", [][]twinMean{{{0.05, 1}, {-0.05, 1}}}, 0.1, 2 * prior / 3},
		// ss = 2·0.1² = 0.02, noise 2·0.05²/2 = 0.0025: 0.0175 beyond it.
		{"twins 20% apart raise it", [][]twinMean{{{0.1, 1}, {-0.1, 1}}}, 0.05, (2*prior + 0.0175) / 3},
		// Each config measured twice: half the noise.
		{"means of repeats carry less noise", [][]twinMean{{{0.1, 2}, {-0.1, 2}}}, 0.05, (2*prior + 0.02 - 0.00125) / 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := twinSpread(c.groups, c.cv, prior); math.Abs(got-c.want) > 1e-12 {
				t.Errorf("twinSpread = %g, want %g", got, c.want)
			}
		})
	}
}

func TestTwinEI(t *testing.T) {
	for _, c := range []struct {
		name     string
		d, sigma float64
		want     float64
	}{
		{"certain and no better", -0.1, 0, 0},
		{"certain and better", 0.1, 0, 0.1},
		{"level with the best: σ·φ(0)", 0, 0.05, 0.05 / math.Sqrt(2*math.Pi)},
		{"far below: nothing", -1, 0.03, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := twinEI(c.d, c.sigma); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("twinEI(%g, %g) = %g, want %g", c.d, c.sigma, got, c.want)
			}
		})
	}
	if twinEI(0, 0.02) >= twinEIFloor || twinEI(0, 0.03) < twinEIFloor {
		t.Errorf("the floor should admit a twin of the incumbent at τ = 3%% and not at 2%%")
	}
}

func TestPriorSpread(t *testing.T) {
	ten := func(e float64) []float64 {
		out := make([]float64, errWindow)
		for i := range out {
			out[i] = e
		}
		return out
	}
	for _, c := range []struct {
		name   string
		errs   []float64
		cv     float64
		want   float64
		wantOK bool
	}{
		{"too few misses to judge", []float64{0.1}, 0.05, 0, false},
		{"two misses suffice", []float64{0.1, 0.1}, 0.05, 0.0075, true},
		{"misses the size of the noise: no spread", ten(0.05), 0.05, 0, true},
		{"misses below the noise: no spread, not negative", ten(0.02), 0.05, 0, true},
		// 0.1² − 0.05² = 0.0075.
		{"misses beyond the noise", ten(0.1), 0.05, 0.0075, true},
		// Only the last errWindow count: an early 50% miss is forgotten.
		{"only the recent misses", append([]float64{0.5}, ten(0.1)...), 0.05, 0.0075, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := priorSpread(c.errs, c.cv)
			if ok != c.wantOK || math.Abs(got-c.want) > 1e-12 {
				t.Errorf("priorSpread = %g, %v; want %g, %v", got, ok, c.want, c.wantOK)
			}
		})
	}
}
