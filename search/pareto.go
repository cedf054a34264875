package search

import (
	"math"
	"slices"
	"sort"

	"github.com/servetune/servetune/space"
)

// Point is one finished trial as the ranking sees it.
type Point struct {
	// Values are the objective values, one per objective, in space order.
	Values []float64
	// Violation is the summed relative SLO violation; 0 means feasible.
	Violation float64
}

// Dominates reports whether a dominates b: feasibility first (a feasible
// point dominates an infeasible one; among infeasible ones less violation
// wins), then Pareto dominance on the objectives.
func Dominates(a, b Point, objs []space.Objective) bool {
	if a.Violation == 0 && b.Violation > 0 {
		return true
	}
	if a.Violation > 0 || b.Violation > 0 {
		return a.Violation < b.Violation
	}
	strictly := false
	for i, o := range objs {
		if o.Better(b.Values[i], a.Values[i]) {
			return false
		}
		if o.Better(a.Values[i], b.Values[i]) {
			strictly = true
		}
	}
	return strictly
}

// Front returns the indices of the non-dominated feasible points, ordered
// by the first objective (best first). Infeasible points never enter it.
//
// The points join one at a time: a point is on the front of those so far
// unless a member dominates it, and it takes off the members it
// dominates. Dominance among feasible points is a strict order, so a
// point some point dominates is dominated by a member of the final
// front: this is the front of all the points, in O(n × front) rather than
// O(n²).
func Front(pts []Point, objs []space.Objective) []int {
	var front []int
	for i, p := range pts {
		if p.Violation > 0 || HasNaN(p.Values) {
			continue
		}
		if slices.ContainsFunc(front, func(f int) bool { return Dominates(pts[f], p, objs) }) {
			continue
		}
		front = slices.DeleteFunc(front, func(f int) bool { return Dominates(p, pts[f], objs) })
		front = append(front, i)
	}
	sort.SliceStable(front, func(a, b int) bool {
		return objs[0].Better(pts[front[a]].Values[0], pts[front[b]].Values[0])
	})
	return front
}

// Best returns the index of the best feasible point on the first objective,
// or -1 when there is none.
func Best(pts []Point, objs []space.Objective) int {
	best := -1
	for i, p := range pts {
		if p.Violation > 0 || HasNaN(p.Values) {
			continue
		}
		if best < 0 || objs[0].Better(p.Values[0], pts[best].Values[0]) {
			best = i
		}
	}
	return best
}

func HasNaN(xs []float64) bool {
	if len(xs) == 0 {
		return true
	}
	for _, x := range xs {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}
