package bench

import (
	"math"
	"sort"
)

// sortFloats sorts in place. A 1000-request benchmark of 1K-token replies
// has a million inter-token gaps, and every trial (and every pruning
// checkpoint) sorts them: an LSD radix sort on the order-preserving bit
// pattern of the floats does it several times faster than a comparison
// sort. Small inputs use sort.Float64s.
func sortFloats(xs []float64) {
	const small = 4096
	if len(xs) < small {
		sort.Float64s(xs)
		return
	}
	keys := make([]uint64, len(xs))
	for i, x := range xs {
		b := math.Float64bits(x)
		if b>>63 == 1 {
			b = ^b // negative: reverse the order of magnitudes
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	keys = radixSort(keys)
	for i, b := range keys {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		xs[i] = math.Float64frombits(b)
	}
}
