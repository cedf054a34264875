package bench

import (
	"math"
	"slices"
	"sort"
	"time"
)

// itlDist is the distribution of the inter-token gaps of the records
// Summarize counts (not warm-up, not aborted, successful), in
// milliseconds, equal bit for bit to summarize of every gap: a million
// gaps often take only thousands of distinct values (every request in a
// batch waits the same step), so it counts them in a hash table and walks
// the sorted distinct values as the sorted gaps; with too many distinct
// values it sorts them all.
func itlDist(recs []Record, pcts []float64, n int) Dist {
	if h, ok := countGaps(recs, max(n/8, 1<<12)); ok {
		return h.dist(pcts)
	}
	ds := make([]time.Duration, 0, n)
	for _, r := range recs {
		if counted(r) {
			ds = append(ds, r.ITL...)
		}
	}
	return summarizeSorted(sortedMillis(ds), pcts)
}

// counted is whether Summarize counts the record as a completed request.
func counted(r Record) bool { return !r.Warmup && r.Class != ClassAborted && r.Success }

// gapCounts is an open-addressing count of durations.
type gapCounts struct {
	keys   []time.Duration
	counts []int
	used   int
}

// countGaps counts the counted records' gaps; false once more than
// limit are distinct.
func countGaps(recs []Record, limit int) (*gapCounts, bool) {
	h := &gapCounts{keys: make([]time.Duration, 1<<12), counts: make([]int, 1<<12)}
	for _, r := range recs {
		if !counted(r) {
			continue
		}
		for _, g := range r.ITL {
			if !h.add(g) {
				continue
			}
			if h.used > limit {
				return nil, false
			}
			if 2*h.used > len(h.keys) {
				h.grow()
			}
		}
	}
	return h, true
}

// add counts d, reporting whether it was new.
func (h *gapCounts) add(d time.Duration) bool {
	mask := uint64(len(h.keys) - 1)
	for i := (uint64(d) * 0x9e3779b97f4a7c15 >> 20) & mask; ; i = (i + 1) & mask {
		if h.counts[i] == 0 {
			h.keys[i], h.counts[i] = d, 1
			h.used++
			return true
		}
		if h.keys[i] == d {
			h.counts[i]++
			return false
		}
	}
}

func (h *gapCounts) grow() {
	keys, counts := h.keys, h.counts
	h.keys, h.counts = make([]time.Duration, 2*len(keys)), make([]int, 2*len(keys))
	mask := uint64(len(h.keys) - 1)
	for j, c := range counts {
		if c == 0 {
			continue
		}
		i := (uint64(keys[j]) * 0x9e3779b97f4a7c15 >> 20) & mask
		for h.counts[i] != 0 {
			i = (i + 1) & mask
		}
		h.keys[i], h.counts[i] = keys[j], c
	}
}

// dist is summarizeSorted of the counted gaps in milliseconds, with the
// same floating-point operations in the same order.
func (h *gapCounts) dist(pcts []float64) Dist {
	type run struct {
		d time.Duration
		c int
	}
	runs := make([]run, 0, h.used)
	for i, c := range h.counts {
		if c > 0 {
			runs = append(runs, run{h.keys[i], c})
		}
	}
	slices.SortFunc(runs, func(a, b run) int { return compareDur(a.d, b.d) })
	vals := make([]float64, len(runs))
	ends := make([]int, len(runs)) // ends[i]: gaps up to and including run i
	n := 0
	for i, r := range runs {
		vals[i] = ms(r.d)
		n += r.c
		ends[i] = n
	}
	return runsDist(vals, ends, pcts)
}

func compareDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// runsDist is summarizeSorted of the sorted data whose value vals[i]
// repeats from index ends[i-1] to ends[i]-1.
func runsDist(vals []float64, ends []int, pcts []float64) Dist {
	n := 0
	if len(ends) > 0 {
		n = ends[len(ends)-1]
	}
	d := Dist{N: n, Percentiles: make(map[string]float64, len(pcts))}
	if n == 0 {
		for _, p := range pcts {
			d.Percentiles[PercentileKey(p)] = 0
		}
		return d
	}
	prev := 0
	sum := 0.0
	for i, x := range vals {
		for range ends[i] - prev {
			sum += x
		}
		prev = ends[i]
	}
	d.Mean = sum / float64(n)
	prev = 0
	ss := 0.0
	for i, x := range vals {
		for range ends[i] - prev {
			ss += (x - d.Mean) * (x - d.Mean)
		}
		prev = ends[i]
	}
	d.Std = math.Sqrt(ss / float64(n))
	at := func(k int) float64 { return vals[sort.SearchInts(ends, k+1)] }
	d.Median = percentileAt(at, n, 50)
	for _, p := range pcts {
		d.Percentiles[PercentileKey(p)] = percentileAt(at, n, p)
	}
	return d
}
