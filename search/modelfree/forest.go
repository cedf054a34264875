package modelfree

import (
	"math"
	"math/rand"
	"sort"
)

// forest is a random forest of regression trees (Breiman 2001): each tree
// is grown on a bootstrap sample, splitting on the best of a random third
// of the features. Its spread over trees is the uncertainty a Bayesian
// optimiser needs (SMAC's random-forest surrogate); trained on 0/1
// targets its mean is a class probability (SCOOT's feasibility model).
// Pure and deterministic for its rng.
type forest struct{ trees []*treeNode }

// treeNode is a leaf (value) or a split on feature < threshold.
type treeNode struct {
	feature     int
	threshold   float64
	value       float64
	left, right *treeNode
}

const (
	forestTrees    = 48
	forestMinLeaf  = 2
	forestMaxDepth = 14
)

// growForest fits a forest to rows xs and targets ys (len(xs) ≥ 1).
func growForest(xs [][]float64, ys []float64, rng *rand.Rand) *forest {
	f := &forest{}
	n := len(xs)
	for range forestTrees {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = rng.Intn(n)
		}
		f.trees = append(f.trees, growTree(xs, ys, idx, 0, rng))
	}
	return f
}

// predict is the mean and standard deviation over the trees at x.
func (f *forest) predict(x []float64) (mean, sd float64) {
	s, s2 := 0.0, 0.0
	for _, t := range f.trees {
		v := t.at(x)
		s += v
		s2 += v * v
	}
	n := float64(len(f.trees))
	mean = s / n
	return mean, math.Sqrt(max(s2/n-mean*mean, 0))
}

func (t *treeNode) at(x []float64) float64 {
	for t.left != nil {
		if x[t.feature] < t.threshold {
			t = t.left
		} else {
			t = t.right
		}
	}
	return t.value
}

func growTree(xs [][]float64, ys []float64, idx []int, depth int, rng *rand.Rand) *treeNode {
	leaf := &treeNode{value: meanOf(ys, idx)}
	if len(idx) < 2*forestMinLeaf || depth >= forestMaxDepth || constant(ys, idx) {
		return leaf
	}
	feat, thr, ok := bestSplit(xs, ys, idx, rng)
	if !ok {
		return leaf
	}
	var l, r []int
	for _, i := range idx {
		if xs[i][feat] < thr {
			l = append(l, i)
		} else {
			r = append(r, i)
		}
	}
	return &treeNode{feature: feat, threshold: thr, left: growTree(xs, ys, l, depth+1, rng), right: growTree(xs, ys, r, depth+1, rng)}
}

// bestSplit tries every midpoint of a random third of the features (more
// when those cannot split the node) and keeps the one that most reduces
// the squared error.
func bestSplit(xs [][]float64, ys []float64, idx []int, rng *rand.Rand) (feat int, thr float64, ok bool) {
	d := len(xs[0])
	try := max(1, d/3)
	best := 0.0
	for n, j := range rng.Perm(d) {
		if n >= try && ok {
			break
		}
		order := append([]int(nil), idx...)
		sort.SliceStable(order, func(a, b int) bool { return xs[order[a]][j] < xs[order[b]][j] })
		total, n := 0.0, float64(len(order))
		for _, i := range order {
			total += ys[i]
		}
		left := 0.0
		for k := 0; k < len(order)-1; k++ {
			left += ys[order[k]]
			lo, hi := xs[order[k]][j], xs[order[k+1]][j]
			nl := float64(k + 1)
			if lo == hi || k+1 < forestMinLeaf || len(order)-k-1 < forestMinLeaf {
				continue
			}
			// Reduction of squared error = nl·nr/n · (mean_l − mean_r)².
			ml, mr := left/nl, (total-left)/(n-nl)
			if gain := nl * (n - nl) / n * (ml - mr) * (ml - mr); gain > best+1e-12 {
				best, feat, thr, ok = gain, j, (lo+hi)/2, true
			}
		}
	}
	return feat, thr, ok
}

func meanOf(ys []float64, idx []int) float64 {
	s := 0.0
	for _, i := range idx {
		s += ys[i]
	}
	return s / float64(len(idx))
}

func constant(ys []float64, idx []int) bool {
	for _, i := range idx[1:] {
		if ys[i] != ys[idx[0]] {
			return false
		}
	}
	return true
}
