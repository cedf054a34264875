package fanova

import (
	"math/rand/v2"
)

// minSamples is the fewest trials a forest is fitted to.
const minSamples = 4

// Importance returns each feature's share of the variance the forest's
// prediction has over the features' domain that the feature explains on
// its own (first-order functional ANOVA, averaged over the trees), as
// Optuna's FanovaImportanceEvaluator computes it; the shares sum to 1, or
// are all 0 when the prediction does not vary. x[i][j] is feature j of
// sample i (NaN: absent), cat[j] marks a categorical feature. It returns
// nil below minSamples samples.
func Importance(x [][]float64, cat []bool, y []float64, seed uint64) []float64 {
	n, d := len(y), len(cat)
	if n < minSamples || d == 0 {
		return nil
	}
	lv, counts := discretize(x)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	sum := make([]float64, d)
	idx := make([]int, n)
	for range nTrees {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		for j, f := range treeFractions(tree(lv, y, cat, counts, idx, rng), counts) {
			sum[j] += f
		}
	}
	return shares(sum)
}

// treeFractions is, per feature, the fraction of the tree's variance over
// the domain (every level of every feature alike) that the feature's
// main effect explains; all 0 for a tree whose prediction is constant.
func treeFractions(leaves []leaf, counts []int) []float64 {
	d := len(counts)
	weight := make([]float64, len(leaves))
	f0 := 0.0
	for i, l := range leaves {
		w := 1.0
		for j, m := range counts {
			w *= float64(popcount(l.box[j])) / float64(m)
		}
		weight[i] = w
		f0 += w * l.value
	}
	total := 0.0
	for i, l := range leaves {
		total += weight[i] * (l.value - f0) * (l.value - f0)
	}
	out := make([]float64, d)
	if total <= 1e-12*(1+f0*f0) {
		return out
	}
	for j, m := range counts {
		out[j] = mainEffect(leaves, weight, j, m, f0) / total
	}
	return out
}

// mainEffect is the variance over feature j's levels of the tree's
// prediction averaged over every other feature.
func mainEffect(leaves []leaf, weight []float64, j, m int, f0 float64) float64 {
	marg := make([]float64, m)
	for i, l := range leaves {
		k := popcount(l.box[j])
		// The leaf's weight among the boxes holding one level of j.
		w := weight[i] * float64(m) / float64(k)
		for b := l.box[j]; b != 0; b &= b - 1 {
			marg[trailing(b)] += w * l.value
		}
	}
	v := 0.0
	for _, f := range marg {
		v += (f - f0) * (f - f0)
	}
	return v / float64(m)
}

func shares(imp []float64) []float64 {
	s := 0.0
	for _, v := range imp {
		s += v
	}
	if s <= 0 {
		return make([]float64, len(imp))
	}
	for j := range imp {
		imp[j] /= s
	}
	return imp
}
