package bench

import (
	"math/rand"
	"slices"
	"testing"
	"time"
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

// Sorting the gaps as durations and converting gives sortFloats of the
// converted gaps, bit for bit (ms is monotone).
func TestSortedMillisMatchesSortFloats(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, n := range []int{0, 1, 10, 5000, 200_000} {
		ds := make([]time.Duration, n)
		for i := range ds {
			switch i % 4 {
			case 0:
				ds[i] = time.Duration(rng.ExpFloat64() * 40e6)
			case 1:
				ds[i] = -time.Duration(rng.Int63n(1 << 40)) // odd records from a file
			case 2:
				ds[i] = time.Duration(rng.Intn(5)) * time.Millisecond // many duplicates
			default:
				ds[i] = time.Duration(rng.Int63()) // beyond 4.3 s: every pass
			}
		}
		want := make([]float64, n)
		for i, d := range ds {
			want[i] = ms(d)
		}
		sortFloats(want)
		if got := sortedMillis(ds); !slices.Equal(got, want) {
			t.Fatalf("n=%d: sortedMillis differs from sortFloats of the converted gaps", n)
		}
	}
}

func BenchmarkSortedMillisMillion(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	src := make([]time.Duration, 1_000_000)
	for i := range src {
		src[i] = time.Duration(rng.ExpFloat64() * 40e6)
	}
	ds := make([]time.Duration, len(src))
	for b.Loop() {
		copy(ds, src)
		sortedMillis(ds)
	}
}
