package motpe

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// The sweep for two objectives flags exactly the observations another
// dominates, in every direction pair, on histories with many equal values
// (a coarse grid: ties on one objective or both, duplicates).
func TestDominated2IsPairwise(t *testing.T) {
	dirs := [][]space.Objective{
		{searchtest.MaxObj("a"), searchtest.MinObj("b")},
		{searchtest.MinObj("a"), searchtest.MinObj("b")},
		{searchtest.MaxObj("a"), searchtest.MaxObj("b")},
		{searchtest.MinObj("a"), searchtest.MaxObj("b")},
	}
	rng := rand.New(rand.NewSource(3))
	for d, objs := range dirs {
		for _, n := range []int{1, 2, 3, 10, 60, 300} {
			for _, grid := range []float64{2, 5, 1000} {
				obs := make([]search.Observation, n)
				for i := range obs {
					obs[i].Values = []float64{float64(rng.Intn(int(grid))), float64(rng.Intn(int(grid)))}
				}
				got, want := dominated2(obs, objs), dominatedPairwise(obs, objs)
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("directions %d, %d points on a grid of %v: sweep %v, pairwise %v (values %v)", d, n, grid, got, want, obs)
				}
			}
		}
	}
}
