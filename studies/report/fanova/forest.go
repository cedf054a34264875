package fanova

import (
	"math/bits"
	"math/rand/v2"
	"sort"
)

// Forest constants, as Optuna's evaluator uses scikit-learn's: 64 trees,
// each on a bootstrap sample, grown until leaves are pure or single.
const (
	nTrees   = 64
	maxDepth = 64
)

// leaf is a box of the feature space (per feature, the bit set of its
// levels the box holds) and the tree's prediction in it.
type leaf struct {
	box   []uint64
	value float64
}

// grower grows one regression tree on levels lv, targets y and the
// features' level counts.
type grower struct {
	lv     [][]int
	y      []float64
	cat    []bool
	rng    *rand.Rand
	leaves []leaf
}

// tree grows a tree on the samples idx (with repeats: a bootstrap) and
// returns its leaves, which partition the whole domain.
func tree(lv [][]int, y []float64, cat []bool, counts []int, idx []int, rng *rand.Rand) []leaf {
	g := &grower{lv: lv, y: y, cat: cat, rng: rng}
	box := make([]uint64, len(counts))
	for j, m := range counts {
		box[j] = fullMask(m)
	}
	g.grow(idx, box, 0)
	return g.leaves
}

func fullMask(m int) uint64 {
	if m >= 64 {
		return ^uint64(0)
	}
	return (uint64(1) << m) - 1
}

// grow splits the node idx (box) on the feature and cut that reduce the
// squared error most, features tried in random order so that equally good
// ones (perfectly correlated knobs) share the splits.
func (g *grower) grow(idx []int, box []uint64, depth int) {
	mean, sse := meanSSE(g.y, idx)
	if len(idx) < 2 || sse <= 1e-12*float64(len(idx)) || depth >= maxDepth {
		g.leaves = append(g.leaves, leaf{box: box, value: mean})
		return
	}
	bestGain, bestJ, bestLeft := 1e-12*sse, -1, uint64(0)
	for _, j := range g.rng.Perm(len(box)) {
		if left, gain, ok := g.split(idx, j, box[j], sse); ok && gain > bestGain {
			bestGain, bestJ, bestLeft = gain, j, left
		}
	}
	if bestJ < 0 {
		g.leaves = append(g.leaves, leaf{box: box, value: mean})
		return
	}
	var li, ri []int
	for _, i := range idx {
		if bestLeft&(1<<g.lv[i][bestJ]) != 0 {
			li = append(li, i)
		} else {
			ri = append(ri, i)
		}
	}
	lb, rb := clone(box), clone(box)
	lb[bestJ], rb[bestJ] = bestLeft, box[bestJ]&^bestLeft
	g.grow(li, lb, depth+1)
	g.grow(ri, rb, depth+1)
}

// split finds feature j's best cut of the node: the set of its levels
// (within mask) that goes left, and the squared error it removes. Levels
// are ordered by value for numeric features and by mean target for
// categorical ones (the optimal subset split for squared error).
func (g *grower) split(idx []int, j int, mask uint64, sse float64) (uint64, float64, bool) {
	stats := g.levelStats(idx, j)
	if len(stats) < 2 {
		return 0, 0, false
	}
	k, gain := bestCut(stats)
	if k < 0 {
		return 0, 0, false
	}
	return g.leftMask(stats[:k+1], stats[k+1:], j, mask), gain, true
}

// levelStats sums the node's targets by level of feature j, in the order
// cuts are tried.
func (g *grower) levelStats(idx []int, j int) []*stat {
	byLevel := map[int]*stat{}
	var stats []*stat
	for _, i := range idx {
		l := g.lv[i][j]
		s := byLevel[l]
		if s == nil {
			s = &stat{level: l}
			byLevel[l] = s
			stats = append(stats, s)
		}
		s.n++
		s.sum += g.y[i]
	}
	sort.Slice(stats, func(a, b int) bool {
		if g.cat[j] {
			ma, mb := stats[a].sum/float64(stats[a].n), stats[b].sum/float64(stats[b].n)
			if ma != mb {
				return ma < mb
			}
		}
		return stats[a].level < stats[b].level
	})
	return stats
}

// bestCut is the k whose cut after stats[k] removes the most squared
// error, and that error (-1 when no cut removes any).
func bestCut(stats []*stat) (int, float64) {
	total, totalN := 0.0, 0
	for _, s := range stats {
		total, totalN = total+s.sum, totalN+s.n
	}
	best, bestK := 0.0, -1
	sumL, nL := 0.0, 0
	for k := 0; k < len(stats)-1; k++ {
		sumL, nL = sumL+stats[k].sum, nL+stats[k].n
		nR := totalN - nL
		// Error removed: n_L·mean_L² + n_R·mean_R² − n·mean².
		gain := sumL*sumL/float64(nL) + (total-sumL)*(total-sumL)/float64(nR) - total*total/float64(totalN)
		if gain > best {
			best, bestK = gain, k
		}
	}
	return bestK, best
}

// stat sums the node's targets at one level of a feature.
type stat struct {
	level, n int
	sum      float64
}

// leftMask is the levels that go left: those of the left samples, and the
// box's levels no sample of the node holds — below the cut for a numeric
// feature, all to the left for a categorical one.
func (g *grower) leftMask(left, right []*stat, j int, mask uint64) uint64 {
	if g.cat[j] {
		var r uint64
		for _, s := range right {
			r |= 1 << s.level
		}
		return mask &^ r
	}
	top := left[len(left)-1].level
	return mask & fullMask(top+1)
}

func clone(b []uint64) []uint64 { return append([]uint64(nil), b...) }

func meanSSE(y []float64, idx []int) (float64, float64) {
	if len(idx) == 0 {
		return 0, 0
	}
	m := 0.0
	for _, i := range idx {
		m += y[i]
	}
	m /= float64(len(idx))
	s := 0.0
	for _, i := range idx {
		s += (y[i] - m) * (y[i] - m)
	}
	return m, s
}

func popcount(m uint64) int { return bits.OnesCount64(m) }

func trailing(m uint64) int { return bits.TrailingZeros64(m) }
