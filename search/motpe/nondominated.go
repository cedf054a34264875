package motpe

import (
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// nonDominated splits feasible observations into the first front and the
// rest, each in the order given. Two objectives, the common case, take a
// sort and a sweep (O(n log n)); more compare every pair that needs it
// (O(n × front)), which on a long study's front of hundreds was a third
// of an ask.
func nonDominated(obs []search.Observation, objs []space.Objective) (front, rest []search.Observation) {
	var dominated []bool
	if len(objs) == 2 {
		dominated = dominated2(obs, objs)
	} else {
		dominated = dominatedPairwise(obs, objs)
	}
	for i, o := range obs {
		if dominated[i] {
			rest = append(rest, o)
		} else {
			front = append(front, o)
		}
	}
	return front, rest
}

// dominatedPairwise flags each observation some other one dominates
// (search.Dominates on their values).
func dominatedPairwise(obs []search.Observation, objs []space.Objective) []bool {
	out := make([]bool, len(obs))
	for i, o := range obs {
		for j, q := range obs {
			if i != j && search.Dominates(search.Point{Values: q.Values}, search.Point{Values: o.Values}, objs) {
				out[i] = true
				break
			}
		}
	}
	return out
}

// dominated2 is dominatedPairwise for two objectives and feasible
// observations without NaN, by a sweep: with both objectives minimised, q
// dominates o when q is no worse on both and better on one, that is when
// q's first value is below o's and its second no higher, or the first
// values are equal and q's second is lower. Sorted by the first value,
// the lowest second value among the points before o's group and the
// lowest within it decide.
func dominated2(obs []search.Observation, objs []space.Objective) []bool {
	n := len(obs)
	x, y := make([]float64, n), make([]float64, n)
	order := make([]int, n)
	for i, o := range obs {
		x[i], y[i], order[i] = minimised(objs[0], o.Values[0]), minimised(objs[1], o.Values[1]), i
	}
	sort.Slice(order, func(a, b int) bool { return x[order[a]] < x[order[b]] })
	out := make([]bool, n)
	before := 0.0 // the lowest second value among the groups passed
	for g := 0; g < n; {
		end := g + 1
		for end < n && x[order[end]] == x[order[g]] {
			end++
		}
		within := y[order[g]]
		for _, i := range order[g+1 : end] {
			within = min(within, y[i])
		}
		for _, i := range order[g:end] {
			out[i] = (g > 0 && before <= y[i]) || within < y[i]
		}
		if g == 0 || within < before {
			before = within
		}
		g = end
	}
	return out
}

// minimised turns a value into one to minimise.
func minimised(o space.Objective, v float64) float64 {
	if o.Direction == space.Maximize {
		return -v
	}
	return v
}
