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
	tmp := make([]uint64, len(keys))
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&0xffff]++
		}
		if count[(keys[0]>>shift)&0xffff] == len(keys) {
			continue // every key has the same digit: nothing to move
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, k := range keys {
			d := (k >> shift) & 0xffff
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, b := range keys {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		xs[i] = math.Float64frombits(b)
	}
}
