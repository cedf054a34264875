package motpe

import (
	"math"
	"sort"

	"github.com/servetune/servetune/space"
)

// A front of a long study on a continuous trade-off holds hundreds or
// thousands of points, and what the model does with one (the window
// keeps it, the split picks its good set from it by greedy hypervolume)
// costs more the more it holds. thinFront keeps a fixed number of them
// spread evenly along the front in objective space, so those costs stop
// growing with the study; below the cap nothing is thinned, so a study
// whose front stays small proposes exactly what it did.

// thinFront returns the positions (ascending) of k of the points, a front
// of mutually non-dominated points: all of them when there are k or
// fewer. Else it walks the path through the points in order of the first
// objective, each objective scaled by its range over the points, puts k
// marks evenly along it, and keeps for each mark the point nearest to it
// after the last one kept (leaving one for each mark to come, so k
// distinct points). Both ends of the front are kept
// (the first mark is the first point, the last the point furthest along).
// For two objectives the path is the front's curve; for more it is a walk
// through them, which still spreads what it keeps.
func thinFront(pts [][]float64, objs []space.Objective, k int) []int {
	n := len(pts)
	if n <= k {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	if k <= 0 {
		return nil
	}
	d := len(objs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	// Best first on the first objective, then the others: a deterministic
	// walk for ties.
	sort.SliceStable(order, func(a, b int) bool {
		pa, pb := pts[order[a]], pts[order[b]]
		for m := range d {
			if pa[m] != pb[m] {
				return objs[m].Better(pa[m], pb[m])
			}
		}
		return false
	})
	span := make([]float64, d)
	for m := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			lo, hi = math.Min(lo, p[m]), math.Max(hi, p[m])
		}
		span[m] = hi - lo
	}
	// along[j] is the length of the path from the first point to order[j].
	along := make([]float64, n)
	for j := 1; j < n; j++ {
		step := 0.0
		for m := range d {
			if span[m] > 0 {
				x := (pts[order[j]][m] - pts[order[j-1]][m]) / span[m]
				step += x * x
			}
		}
		along[j] = along[j-1] + math.Sqrt(step)
	}
	total := along[n-1]
	kept := make([]bool, n)
	j := -1
	for mark := range k {
		at := 0.0
		if k > 1 {
			at = total * float64(mark) / float64(k-1)
		}
		// The nearest point to the mark after the last one kept, leaving
		// a point for each mark still to come: k distinct points.
		j++
		for j+1 <= n-(k-mark) && math.Abs(along[j+1]-at) < math.Abs(along[j]-at) {
			j++
		}
		kept[order[j]] = true
	}
	var out []int
	for i, ok := range kept {
		if ok {
			out = append(out, i)
		}
	}
	return out
}
