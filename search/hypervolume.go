package search

import (
	"math"
	"sort"

	"github.com/servetune/servetune/space"
)

// Hypervolume is the volume of objective space that the points dominate and
// that dominates ref: the standard single-number quality of a Pareto front,
// larger is better. It is exact for any number of objectives.
//
// Maximised objectives are negated so that every objective is minimised
// internally; ref is given in the objectives' own units and directions. A
// point that does not strictly dominate ref on every objective contributes
// nothing, and points with NaN values are ignored.
//
// Two objectives use an O(n log n) sweep; more use slicing on the last
// objective (each slice is the (d-1)-dimensional hypervolume of the points
// that reach it), which is O(n^(d-1) log n): fine for the ≤ 100 points of
// a study, not for populations of thousands.
func Hypervolume(points [][]float64, objs []space.Objective, ref []float64) float64 {
	d := len(objs)
	if d == 0 || len(ref) < d {
		return 0
	}
	r := make([]float64, d)
	for i, o := range objs {
		r[i] = minimised(o, ref[i])
	}
	var pts [][]float64
	for _, p := range points {
		if len(p) < d || HasNaN(p[:d]) {
			continue
		}
		q := make([]float64, d)
		inside := true
		for i, o := range objs {
			q[i] = minimised(o, p[i])
			inside = inside && q[i] < r[i]
		}
		if inside {
			pts = append(pts, q)
		}
	}
	return hvMin(pts, r)
}

func minimised(o space.Objective, v float64) float64 {
	if o.Direction == space.Maximize {
		return -v
	}
	return v
}

// hvMin is the hypervolume of points that all strictly dominate r, every
// objective minimised.
func hvMin(pts [][]float64, r []float64) float64 {
	d := len(r)
	switch {
	case len(pts) == 0:
		return 0
	case d == 1:
		best := pts[0][0]
		for _, p := range pts[1:] {
			best = math.Min(best, p[0])
		}
		return r[0] - best
	case d == 2:
		return hv2(pts, r)
	}
	// Sweep the last objective upward: between two consecutive values the
	// dominated region's cross-section is the (d-1)-D hypervolume of every
	// point already passed.
	sorted := append([][]float64(nil), pts...)
	sort.Slice(sorted, func(a, b int) bool { return sorted[a][d-1] < sorted[b][d-1] })
	total := 0.0
	for i := range sorted {
		next := r[d-1]
		if i+1 < len(sorted) {
			next = sorted[i+1][d-1]
		}
		depth := next - sorted[i][d-1]
		if depth <= 0 {
			continue
		}
		total += depth * hvMin(project(sorted[:i+1], d-1), r[:d-1])
	}
	return total
}

func project(pts [][]float64, d int) [][]float64 {
	out := make([][]float64, len(pts))
	for i, p := range pts {
		out[i] = p[:d]
	}
	return out
}

func hv2(pts [][]float64, r []float64) float64 {
	sorted := append([][]float64(nil), pts...)
	sort.Slice(sorted, func(a, b int) bool {
		if sorted[a][0] != sorted[b][0] {
			return sorted[a][0] < sorted[b][0]
		}
		return sorted[a][1] < sorted[b][1]
	})
	total, ceiling := 0.0, r[1]
	for _, p := range sorted {
		if p[1] >= ceiling {
			continue // dominated by a point with a smaller first objective
		}
		total += (r[0] - p[0]) * (ceiling - p[1])
		ceiling = p[1]
	}
	return total
}

// referenceMargin is how far ReferencePoint moves outward, as a fraction of
// each objective's range.
const referenceMargin = 0.1

// ReferencePoint is the reference point servetune's reports and evaluation
// use for Hypervolume: for each objective, the worst value among the points
// moved outward (further in the worse direction) by 10% of that
// objective's range over the points. When every point has the same value
// the range is taken as |value| (or 1 for zero), so the reference still
// lies strictly outside and the extreme points keep a non-zero share.
//
// The margin lets the front's extreme points contribute volume; without
// it they would add nothing along the objective where they are worst. To
// compare samplers, compute the reference point once from the true front
// (or from all samplers' points together) and use it for every sampler:
// hypervolumes under different reference points are not comparable.
// Points with NaN values are ignored; nil is returned when none remain.
func ReferencePoint(points [][]float64, objs []space.Objective) []float64 {
	d := len(objs)
	lo, hi := make([]float64, d), make([]float64, d)
	n := 0
	for _, p := range points {
		if len(p) < d || HasNaN(p[:d]) {
			continue
		}
		for i := 0; i < d; i++ {
			if n == 0 || p[i] < lo[i] {
				lo[i] = p[i]
			}
			if n == 0 || p[i] > hi[i] {
				hi[i] = p[i]
			}
		}
		n++
	}
	if n == 0 {
		return nil
	}
	ref := make([]float64, d)
	for i, o := range objs {
		worst := lo[i]
		if o.Direction == space.Minimize {
			worst = hi[i]
		}
		span := hi[i] - lo[i]
		if span == 0 {
			span = math.Abs(worst)
			if span == 0 {
				span = 1
			}
		}
		if o.Direction == space.Minimize {
			ref[i] = worst + referenceMargin*span
		} else {
			ref[i] = worst - referenceMargin*span
		}
	}
	return ref
}

// NoiseTies flags the front members that are within measurement noise of a
// neighbour. The front is sorted by the first objective; two neighbours are
// tied when on every objective
//
//	|a − b| ≤ 2 · cv · max(|a|, |b|) · √2
//
// where cv is the measured coefficient of variation of one measurement
// (e.g. 0.03 for ±3% run-to-run noise). The difference of two independent
// measurements with standard deviation cv·x has standard deviation
// √2·cv·x, so a gap inside two of those standard deviations on every
// objective is not evidence that either point is better on any of them:
// reports mark both members ("~") rather than present a trade-off that may
// be noise. The result is in the order of front; cv ≤ 0 flags nothing
// except exact duplicates.
func NoiseTies(front [][]float64, cv float64) []bool {
	tied := make([]bool, len(front))
	order := make([]int, len(front))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return front[order[a]][0] < front[order[b]][0] })
	for k := 0; k+1 < len(order); k++ {
		i, j := order[k], order[k+1]
		if withinNoise(front[i], front[j], cv) {
			tied[i], tied[j] = true, true
		}
	}
	return tied
}

func withinNoise(a, b []float64, cv float64) bool {
	n := min(len(a), len(b))
	if n == 0 {
		return false
	}
	for m := 0; m < n; m++ {
		tol := 2 * math.Max(cv, 0) * math.Max(math.Abs(a[m]), math.Abs(b[m])) * math.Sqrt2
		if !(math.Abs(a[m]-b[m]) <= tol) {
			return false
		}
	}
	return true
}
