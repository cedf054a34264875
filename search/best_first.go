package search

import (
	"sort"

	"github.com/servetune/servetune/space"
)

// BestFirst orders cs by score, highest first, keeping the order of equal
// scores so that a sampler's proposals stay deterministic for its seed.
// cbo, trust and scoot each rank their candidates this way.
func BestFirst(cs []space.Config, score []float64) []space.Config {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	out := make([]space.Config, len(cs))
	for i, j := range idx {
		out[i] = cs[j]
	}
	return out
}
