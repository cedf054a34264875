package search

import (
	"slices"
	"sort"

	"github.com/servetune/servetune/space"
)

// FrontMemo is Front for a study's loop, which asks for the front of
// every config's means before each pick: between two picks one or two
// configs change (a new config, a measurement again), so Front's
// O(configs × front) walk per pick made a two-objective study's trials
// cost more the longer it ran. The memo keeps the non-dominated set and
// re-examines only what changed: an added or changed point, and when a
// front member changed, the points it dominated. The answer is Front's,
// index for index (TestFrontMemoIsFront): the non-dominated feasible
// points, in index order, stably sorted by the first objective.
type FrontMemo struct {
	pts  []Point // copies of the last call's points
	objs []space.Objective
	in   []bool // in[i]: pts[i] is on the front
}

// Front is Front(pts, objs).
func (m *FrontMemo) Front(pts []Point, objs []space.Objective) []int {
	if m.objs == nil || len(pts) < len(m.pts) || !slices.Equal(objs, m.objs) {
		m.pts, m.in, m.objs = nil, nil, slices.Clone(objs)
	}
	var recheck []int
	for i := range m.pts {
		if samePoint(pts[i], m.pts[i]) {
			continue
		}
		recheck = append(recheck, i)
		if m.in[i] {
			// Points the old member dominated may have no other dominator.
			old := m.pts[i]
			m.in[i] = false
			for k := range m.pts {
				if k != i && !m.in[k] && Dominates(old, m.pts[k], objs) {
					recheck = append(recheck, k)
				}
			}
		}
		m.pts[i] = copyPoint(pts[i])
	}
	for i := len(m.pts); i < len(pts); i++ {
		m.pts, m.in = append(m.pts, copyPoint(pts[i])), append(m.in, false)
		recheck = append(recheck, i)
	}
	slices.Sort(recheck)
	for _, i := range slices.Compact(recheck) {
		m.consider(i)
	}
	return m.sorted()
}

// consider puts point i on the front unless a member dominates it, and
// takes off the members it dominates.
func (m *FrontMemo) consider(i int) {
	p := m.pts[i]
	if m.in[i] || p.Violation > 0 || HasNaN(p.Values) {
		return
	}
	for k, on := range m.in {
		if on && Dominates(m.pts[k], p, m.objs) {
			return
		}
	}
	for k, on := range m.in {
		if on && Dominates(p, m.pts[k], m.objs) {
			m.in[k] = false
		}
	}
	m.in[i] = true
}

// sorted is the front in index order, stably sorted by the first
// objective, as Front orders it.
func (m *FrontMemo) sorted() []int {
	var front []int
	for i, on := range m.in {
		if on {
			front = append(front, i)
		}
	}
	sort.SliceStable(front, func(a, b int) bool {
		return m.objs[0].Better(m.pts[front[a]].Values[0], m.pts[front[b]].Values[0])
	})
	return front
}

func samePoint(a, b Point) bool {
	if !sameBits(a.Violation, b.Violation) || len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if !sameBits(a.Values[i], b.Values[i]) {
			return false
		}
	}
	return true
}

func copyPoint(p Point) Point {
	p.Values = slices.Clone(p.Values)
	return p
}
