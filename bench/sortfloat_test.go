package bench

import (
	"math/rand"
	"slices"
	"testing"
)

func TestSortFloatsMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 10, 5000, 100_000} {
		xs := make([]float64, n)
		for i := range xs {
			switch i % 4 {
			case 0:
				xs[i] = rng.ExpFloat64() * 40
			case 1:
				xs[i] = -rng.Float64() * 1e6
			case 2:
				xs[i] = float64(rng.Intn(5)) // many duplicates
			default:
				xs[i] = rng.NormFloat64() * 1e-9
			}
		}
		want := slices.Clone(xs)
		slices.Sort(want)
		sortFloats(xs)
		if !slices.Equal(xs, want) {
			t.Fatalf("n=%d: radix sort differs from slices.Sort", n)
		}
	}
}

func BenchmarkSortFloatsMillion(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	src := make([]float64, 1_000_000)
	for i := range src {
		src[i] = rng.ExpFloat64() * 40
	}
	xs := make([]float64, len(src))
	for b.Loop() {
		copy(xs, src)
		sortFloats(xs)
	}
}
