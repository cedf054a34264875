package report

import (
	"math"
	"math/rand/v2"
)

// Knob importance is permutation importance over a k-nearest-neighbour
// surrogate of the measured trials:
//
//   - the surrogate predicts a trial's objective as the mean of its
//     importanceK nearest other trials (leave-one-out), with distance the
//     sum over knobs of the squared min-max-scaled difference for numeric
//     knobs and 0/1 for categorical ones (and for a knob one trial lacks);
//   - a knob's importance is how much the surrogate's leave-one-out mean
//     squared error grows when that knob's column is shuffled across the
//     trials (mean of importanceRepeats seeded shuffles), clipped at zero;
//   - importances are shares: they sum to 1 over the knobs, or are all 0
//     when no knob explains anything.
//
// A kNN surrogate needs no training and no tuning, handles categorical
// knobs and conditional knobs, and is deterministic for a seed; it sees
// only main effects a neighbourhood can express, which is what a report's
// "which knobs mattered" asks.
const (
	importanceK       = 5
	importanceRepeats = 5
	importanceSeed    = 14
)

// Importance is one knob's share of each objective's explained error.
type Importance struct {
	Knob  string
	Share []float64
}

// PermutationImportance returns each feature's share of the surrogate's
// error growth when that feature is shuffled (see the method above).
// x[i][j] is feature j of sample i (NaN: absent); cat[j] marks a
// categorical feature. It returns nil when there are too few samples to
// hold anything out (fewer than importanceK+2).
func PermutationImportance(x [][]float64, cat []bool, y []float64, seed uint64) []float64 {
	n, d := len(y), len(cat)
	if n < importanceK+2 {
		return nil
	}
	xs := scaleColumns(x, cat)
	dist := distances(xs, cat)
	base := looMSE(dist, y, n)
	rng := rand.New(rand.NewPCG(seed, importanceSeed))
	imp := make([]float64, d)
	work := make([]float64, len(dist))
	for j := range d {
		for range importanceRepeats {
			permuted(work, dist, xs, cat[j], j, rng.Perm(n))
			imp[j] += looMSE(work, y, n) - base
		}
		imp[j] = math.Max(0, imp[j]/importanceRepeats)
	}
	return shares(imp)
}

func shares(imp []float64) []float64 {
	sum := 0.0
	for _, v := range imp {
		sum += v
	}
	if sum <= 0 {
		return make([]float64, len(imp))
	}
	for j := range imp {
		imp[j] /= sum
	}
	return imp
}

// scaleColumns maps numeric features onto [0, 1] so no knob's units
// dominate the distance.
func scaleColumns(x [][]float64, cat []bool) [][]float64 {
	out := make([][]float64, len(x))
	for i := range x {
		out[i] = append([]float64(nil), x[i]...)
	}
	for j, c := range cat {
		if c {
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range x {
			if v := x[i][j]; !math.IsNaN(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		for i := range out {
			if hi > lo && !math.IsNaN(out[i][j]) {
				out[i][j] = (out[i][j] - lo) / (hi - lo)
			} else if !math.IsNaN(out[i][j]) {
				out[i][j] = 0
			}
		}
	}
	return out
}

func term(a, b float64, cat bool) float64 {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || math.IsNaN(b):
		return 1
	case cat:
		if a == b {
			return 0
		}
		return 1
	}
	return (a - b) * (a - b)
}

func distances(x [][]float64, cat []bool) []float64 {
	n := len(x)
	d := make([]float64, n*n)
	for i := range n {
		for k := i + 1; k < n; k++ {
			s := 0.0
			for j, c := range cat {
				s += term(x[i][j], x[k][j], c)
			}
			d[i*n+k], d[k*n+i] = s, s
		}
	}
	return d
}

// permuted writes into dst the distances with feature j's column
// shuffled by perm: only that feature's term changes.
func permuted(dst, dist []float64, x [][]float64, cat bool, j int, perm []int) {
	n := len(x)
	for i := range n {
		for k := i + 1; k < n; k++ {
			s := dist[i*n+k] - term(x[i][j], x[k][j], cat) + term(x[perm[i]][j], x[perm[k]][j], cat)
			dst[i*n+k], dst[k*n+i] = s, s
		}
	}
}

// looMSE is the surrogate's leave-one-out mean squared error. The k
// nearest are kept by insertion (ties to the lower index), O(n·k) a row.
func looMSE(dist, y []float64, n int) float64 {
	var near [importanceK]int
	sum := 0.0
	for i := range n {
		row, m := dist[i*n:(i+1)*n], 0
		for k := range n {
			if k == i || (m == importanceK && row[k] >= row[near[m-1]]) {
				continue
			}
			if m < importanceK {
				m++
			}
			at := m - 1
			for ; at > 0 && row[near[at-1]] > row[k]; at-- {
				near[at] = near[at-1]
			}
			near[at] = k
		}
		pred := 0.0
		for _, k := range near {
			pred += y[k]
		}
		e := pred/importanceK - y[i]
		sum += e * e
	}
	return sum / float64(n)
}
