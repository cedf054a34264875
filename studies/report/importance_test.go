package report

import (
	"math"
	"math/rand/v2"
	"testing"
)

// samples draws n configs of three knobs: a numeric one on [0, 10], a
// categorical one with three levels, and numeric noise on [0, 1].
func samples(n int) [][]float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([][]float64, n)
	for i := range x {
		x[i] = []float64{float64(rng.IntN(11)), float64(rng.IntN(3)), rng.Float64()}
	}
	return x
}

func TestPermutationImportance(t *testing.T) {
	cat := []bool{false, true, false}
	x := samples(60)
	ys := func(f func([]float64) float64) []float64 {
		y := make([]float64, len(x))
		for i := range x {
			y[i] = f(x[i])
		}
		return y
	}
	for _, tc := range []struct {
		name string
		y    []float64
		// want[j] is the least share knob j must get; a negative want
		// bounds it from above (at most -want).
		want []float64
	}{
		{"numeric knob alone", ys(func(r []float64) float64 { return 100 * r[0] }), []float64{0.8, -0.1, -0.1}},
		{"categorical knob alone", ys(func(r []float64) float64 { return []float64{0, 500, 80}[int(r[1])] }), []float64{-0.1, 0.8, -0.1}},
		{"both", ys(func(r []float64) float64 { return 100*r[0] + []float64{0, 1000, 0}[int(r[1])] }), []float64{0.1, 0.3, -0.1}},
		{"nothing matters", ys(func([]float64) float64 { return 7 }), []float64{-0, -0, -0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PermutationImportance(x, cat, tc.y, 1)
			sum := 0.0
			for j, w := range tc.want {
				sum += got[j]
				if (w >= 0 && got[j] < w) || (w <= 0 && got[j] > -w) {
					t.Errorf("knob %d share %.3f, want %s %.2f (all %v)", j, got[j], map[bool]string{true: "≥", false: "≤"}[w > 0], math.Abs(w), got)
				}
			}
			if sum != 0 && math.Abs(sum-1) > 1e-9 {
				t.Errorf("shares sum to %v, want 1 (or all 0)", sum)
			}
		})
	}
}

func TestPermutationImportanceIsDeterministicAndNeedsSamples(t *testing.T) {
	x := samples(30)
	y := make([]float64, len(x))
	for i := range x {
		y[i] = x[i][0] + x[i][2]
	}
	a, b := PermutationImportance(x, []bool{false, true, false}, y, 9), PermutationImportance(x, []bool{false, true, false}, y, 9)
	for j := range a {
		if a[j] != b[j] {
			t.Fatalf("same seed, different shares: %v vs %v", a, b)
		}
	}
	if got := PermutationImportance(x[:importanceK+1], []bool{false, true, false}, y[:importanceK+1], 1); got != nil {
		t.Errorf("with %d samples nothing can be held out, got %v", importanceK+1, got)
	}
}

func TestPermutationImportanceTreatsAnAbsentKnobAsItsOwnValue(t *testing.T) {
	// The second knob exists only where the first is 1 (a `when` knob);
	// the objective follows its presence.
	var x [][]float64
	var y []float64
	for i := range 40 {
		on := float64(i % 2)
		second := math.NaN()
		if on == 1 {
			second = float64(i % 3)
		}
		x, y = append(x, []float64{on, second}), append(y, 10*on)
	}
	got := PermutationImportance(x, []bool{true, true}, y, 1)
	if got[0]+got[1] < 0.99 || math.IsNaN(got[0]) || math.IsNaN(got[1]) {
		t.Errorf("shares %v: absent values must count as a difference, never NaN", got)
	}
}
