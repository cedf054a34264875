package fanova

import (
	"math"
	"math/rand/v2"
	"testing"
)

// draw makes n samples of d features with make(rng) and targets f.
func draw(n int, seed uint64, feat func(*rand.Rand) []float64, f func([]float64) float64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := make([][]float64, n)
	y := make([]float64, n)
	for i := range x {
		x[i] = feat(rng)
		y[i] = f(x[i])
	}
	return x, y
}

// bounds checks shares: want[j] ≥ 0 is the least share knob j must get, a
// negative want the most (-want).
func bounds(t *testing.T, got, want []float64) {
	t.Helper()
	sum := 0.0
	for j, w := range want {
		sum += got[j]
		if (w >= 0 && got[j] < w) || (w < 0 && got[j] > -w) || math.IsNaN(got[j]) {
			t.Errorf("knob %d share %.3f, want %s %.2f (all %.3f)", j, got[j], map[bool]string{true: "≥", false: "≤"}[w >= 0], math.Abs(w), got)
		}
	}
	if sum != 0 && math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares sum to %v, want 1", sum)
	}
}

// The case: y depends on x1 alone, and the study sampled x2 almost
// always equal to x1 (correlated knobs): the importance is x1's.
func TestCorrelatedKnobDoesNotStealTheShare(t *testing.T) {
	x, y := draw(50, 7, func(r *rand.Rand) []float64 {
		x1 := float64(r.IntN(4))
		x2 := x1
		if r.IntN(5) == 0 { // one in five differs
			x2 = float64(r.IntN(4))
		}
		return []float64{x1, x2, r.Float64()}
	}, func(v []float64) float64 { return 1000 * v[0] * v[0] })
	bounds(t, Importance(x, []bool{false, false, false}, y, 1), []float64{0.85, -0.1, -0.05})
}

// The same with categorical knobs, as the quickstart's dp and
// moe_a2a_backend: a level of one decides y, the other follows it.
func TestCorrelatedCategoricalKnobs(t *testing.T) {
	x, y := draw(45, 3, func(r *rand.Rand) []float64 {
		a := float64(r.IntN(2))
		b := a
		if r.IntN(6) == 0 {
			b = 1 - a
		}
		return []float64{a, b, float64(r.IntN(4))}
	}, func(v []float64) float64 { return []float64{5000, 20000}[int(v[0])] })
	bounds(t, Importance(x, []bool{true, true, true}, y, 2), []float64{0.85, -0.1, -0.05})
}

// Independent additive effects split as their variances do: y = 2·x1 + x2
// with x1, x2 uniform on the same levels gives 4:1, i.e. 0.8 and 0.2.
func TestAdditiveEffectsShareByVariance(t *testing.T) {
	x, y := draw(200, 5, func(r *rand.Rand) []float64 {
		return []float64{float64(r.IntN(5)), float64(r.IntN(5))}
	}, func(v []float64) float64 { return 2*v[0] + v[1] })
	got := Importance(x, []bool{false, false}, y, 3)
	if math.Abs(got[0]-0.8) > 0.06 || math.Abs(got[1]-0.2) > 0.06 {
		t.Errorf("shares %.3f, want about 0.8 and 0.2", got)
	}
}

// A categorical level that matters is found whatever its index.
func TestCategoricalLevelInTheMiddle(t *testing.T) {
	x, y := draw(60, 9, func(r *rand.Rand) []float64 {
		return []float64{float64(r.IntN(5)), float64(r.IntN(10))}
	}, func(v []float64) float64 { return []float64{0, 0, 900, 0, 0}[int(v[0])] })
	bounds(t, Importance(x, []bool{true, false}, y, 4), []float64{0.9, -0.1})
}

// An absent value (a `when` knob that did not apply) is a level of its
// own, never NaN in the shares.
func TestAbsentValuesAreALevel(t *testing.T) {
	x, y := draw(40, 11, func(r *rand.Rand) []float64 {
		if r.IntN(2) == 0 {
			return []float64{math.NaN(), float64(r.IntN(3))}
		}
		return []float64{float64(r.IntN(3)), float64(r.IntN(3))}
	}, func(v []float64) float64 {
		if math.IsNaN(v[0]) {
			return 10
		}
		return 100
	})
	bounds(t, Importance(x, []bool{true, false}, y, 5), []float64{0.9, -0.1})
}

func TestNothingMattersAndTooFew(t *testing.T) {
	x, y := draw(20, 1, func(r *rand.Rand) []float64 { return []float64{r.Float64(), r.Float64()} }, func([]float64) float64 { return 7 })
	for j, s := range Importance(x, []bool{false, false}, y, 1) {
		if s != 0 {
			t.Errorf("knob %d share %v for a constant objective, want 0", j, s)
		}
	}
	if got := Importance(x[:minSamples-1], []bool{false, false}, y[:minSamples-1], 1); got != nil {
		t.Errorf("%d samples: %v, want nil", minSamples-1, got)
	}
}

func TestDeterministicForASeed(t *testing.T) {
	x, y := draw(30, 2, func(r *rand.Rand) []float64 { return []float64{r.Float64(), float64(r.IntN(3))} },
		func(v []float64) float64 { return v[0] + v[1] })
	a, b := Importance(x, []bool{false, true}, y, 8), Importance(x, []bool{false, true}, y, 8)
	for j := range a {
		if a[j] != b[j] {
			t.Fatalf("same seed, different shares: %v vs %v", a, b)
		}
	}
}

// Many distinct values are binned, and the effect still found.
func TestContinuousKnobIsBinned(t *testing.T) {
	x, y := draw(300, 4, func(r *rand.Rand) []float64 { return []float64{r.Float64() * 10, r.Float64()} },
		func(v []float64) float64 { return math.Sin(v[0]) * 100 })
	bounds(t, Importance(x, []bool{false, false}, y, 6), []float64{0.9, -0.1})
}
