package bench

// radixSort sorts keys by an LSD radix sort, 16 bits a pass, skipping
// the passes whose digit every key shares, and returns the sorted slice
// (keys itself or its scratch twin). sortFloats and sortDurations map
// their values to order-preserving keys and share it.
func radixSort(keys []uint64) []uint64 {
	if len(keys) == 0 {
		return keys
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
	return keys
}
