package search

import (
	"math"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/servetune/servetune/space"
)

// bruteFront is the front by its definition: every feasible point no
// other feasible point dominates, ordered stably by the first objective.
func bruteFront(pts []Point, objs []space.Objective) []int {
	var front []int
	for i, p := range pts {
		if p.Violation > 0 || HasNaN(p.Values) {
			continue
		}
		dominated := false
		for j, q := range pts {
			if i != j && q.Violation == 0 && !HasNaN(q.Values) && Dominates(q, p, objs) {
				dominated = true
			}
		}
		if !dominated {
			front = append(front, i)
		}
	}
	sort.SliceStable(front, func(a, b int) bool { return objs[0].Better(pts[front[a]].Values[0], pts[front[b]].Values[0]) })
	return front
}

// Front, built one point at a time, is the front by definition on point
// sets with ties, equal points, infeasible points and NaN values.
func TestFrontIsTheDefinitionsFront(t *testing.T) {
	for _, objs := range [][]space.Objective{
		{maxObj("total_tps"), minObj("mean_tpot_ms")},
		{maxObj("total_tps"), minObj("mean_tpot_ms"), minObj("p99_ttft_ms")},
	} {
		for seed := int64(1); seed <= 200; seed++ {
			rng := rand.New(rand.NewSource(seed))
			pts := make([]Point, rng.Intn(80))
			for i := range pts {
				vals := make([]float64, len(objs))
				for k := range vals {
					vals[k] = float64(rng.Intn(6))
				}
				if rng.Intn(15) == 0 {
					vals[rng.Intn(len(vals))] = math.NaN()
				}
				pts[i] = Point{Values: vals}
				if rng.Intn(8) == 0 {
					pts[i].Violation = rng.Float64()
				}
			}
			if got, want := Front(pts, objs), bruteFront(pts, objs); !slices.Equal(got, want) {
				t.Fatalf("%d objectives, seed %d: Front %v, by definition %v", len(objs), seed, got, want)
			}
		}
	}
}
