package search

import (
	"math"
	"math/rand"
	"testing"
)

func TestHalfWidth(t *testing.T) {
	for _, c := range []struct {
		name          string
		cv            float64
		df, n         int
		assumed, want float64
	}{
		{"no repeat: the assumption at its own weight", 0.05, 0, 1, 0.05, 4.302653 * 0.05},
		{"known noise", 0.05, 0, 1, 0, 1.96 * 0.05},
		{"known noise, four measurements", 0.05, 0, 4, 0, 1.96 * 0.05 / 2},
		{"three repeats pooled with the assumption", 0.02, 3, 1, 0.05, 2.570582 * math.Sqrt((3*0.0004+2*0.0025)/5)},
		{"many repeats: the normal interval of the measured noise", 0.03, 10000, 2, 0.05, 1.960 * 0.03 / math.Sqrt2},
	} {
		if got := HalfWidth(c.cv, c.df, c.n, c.assumed); math.Abs(got-c.want) > 1e-3*c.want {
			t.Errorf("%s: HalfWidth(%v, %d, %d, %v) = %.5f, want %.5f", c.name, c.cv, c.df, c.n, c.assumed, got, c.want)
		}
	}
}

// TestHalfWidthCovers checks the interval's claim under its own model:
// normal noise whose variance is drawn from the prior PriorCV stands for
// (the assumed CV at noisePriorDF degrees of freedom), measured from df
// degrees of freedom of repeats. The old 1.96·CV/√n, with the measured CV
// taken as known, falls well short there.
func TestHalfWidthCovers(t *testing.T) {
	const assumed, runs = 0.05, 40000
	rng := rand.New(rand.NewSource(1))
	for _, df := range []int{0, 1, 3, 6} {
		for _, n := range []int{1, 3} {
			covered, old := 0, 0
			for range runs {
				chi := 0.0
				for range noisePriorDF {
					z := rng.NormFloat64()
					chi += z * z
				}
				sigma := assumed * math.Sqrt(noisePriorDF/chi)
				ss := 0.0
				for range df { // df configs measured twice, about a true value of 1
					a, b := 1+sigma*rng.NormFloat64(), 1+sigma*rng.NormFloat64()
					ss += (a - b) * (a - b) / 2
				}
				measured := assumed
				if df > 0 {
					measured = math.Sqrt(ss / float64(df))
				}
				mean := 0.0
				for range n {
					mean += 1 + sigma*rng.NormFloat64()
				}
				err := math.Abs(mean/float64(n) - 1)
				if err <= HalfWidth(measured, df, n, assumed) {
					covered++
				}
				if err <= 1.96*measured/math.Sqrt(float64(n)) {
					old++
				}
			}
			got, was := float64(covered)/runs, float64(old)/runs
			if math.Abs(got-intervalP) > 0.006 {
				t.Errorf("df %d, n %d: the interval covers %.3f of true values, want %.2f", df, n, got, intervalP)
			}
			if was > 0.92 {
				t.Errorf("df %d, n %d: 1.96·CV/√n covers %.3f: this test no longer shows the known-noise interval short", df, n, was)
			}
		}
	}
}
