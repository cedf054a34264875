package bench

import (
	"slices"
	"time"
)

// sortedMillis sorts ds in place and returns them in milliseconds as ms
// converts them, in the same order: ms is monotone, so this is
// sortFloats of the converted values. Sorting the integer nanoseconds
// instead of the floats lets the radix sort skip every 16-bit digit all
// gaps share — the top two for any gap under 4.3 s — so a benchmark's
// million inter-token gaps take two passes, not four.
func sortedMillis(ds []time.Duration) []float64 {
	sortDurations(ds)
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = ms(d)
	}
	return out
}

// sortDurations is an LSD radix sort on the order-preserving bits of
// the durations (sign bit flipped), 16 bits a pass, skipping passes whose
// digit every key shares. Small inputs use slices.Sort.
func sortDurations(ds []time.Duration) {
	const small = 4096
	if len(ds) < small {
		slices.Sort(ds)
		return
	}
	keys := make([]uint64, len(ds))
	for i, d := range ds {
		keys[i] = uint64(d) ^ 1<<63
	}
	keys = radixSort(keys)
	for i, k := range keys {
		ds[i] = time.Duration(k ^ 1<<63)
	}
}
