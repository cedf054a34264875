package fanova

import (
	"math"
	"sort"
)

// maxLevels bounds a feature's levels: a box is a bit set of levels, and a
// feature with more distinct values is cut into this many quantile bins.
const maxLevels = 64

// discretize maps each feature onto level indices: its distinct values in
// order (absent first), or quantile bins of them. It returns the samples'
// levels and each feature's level count.
func discretize(x [][]float64) ([][]int, []int) {
	n := len(x)
	if n == 0 {
		return nil, nil
	}
	d := len(x[0])
	lv := make([][]int, n)
	for i := range lv {
		lv[i] = make([]int, d)
	}
	counts := make([]int, d)
	for j := range d {
		col := make([]float64, n)
		for i := range x {
			col[i] = x[i][j]
		}
		cuts := levelsOf(col)
		counts[j] = len(cuts)
		for i, v := range col {
			lv[i][j] = levelOf(cuts, v)
		}
	}
	return lv, counts
}

// levelsOf are the lower bounds of a column's levels: NaN (absent) first
// when present, then its distinct values, merged into at most maxLevels.
func levelsOf(col []float64) []float64 {
	var vals []float64
	for _, v := range col {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	sort.Float64s(vals)
	room := maxLevels
	if len(vals) < len(col) {
		room--
	}
	cuts := quantileCuts(vals, room)
	if len(vals) < len(col) {
		cuts = append([]float64{math.NaN()}, cuts...)
	}
	return cuts
}

// quantileCuts are the distinct values of sorted vals, or room quantile
// lower bounds of them when there are more.
func quantileCuts(vals []float64, room int) []float64 {
	var distinct []float64
	for i, v := range vals {
		if i == 0 || v != vals[i-1] {
			distinct = append(distinct, v)
		}
	}
	if len(distinct) <= room {
		return distinct
	}
	bins := make([]float64, 0, room)
	for b := range room {
		if v := vals[b*len(vals)/room]; len(bins) == 0 || v > bins[len(bins)-1] {
			bins = append(bins, v)
		}
	}
	return bins
}

// levelOf is v's level: the last lower bound not above it.
func levelOf(cuts []float64, v float64) int {
	start := 0
	if len(cuts) > 0 && math.IsNaN(cuts[0]) {
		if math.IsNaN(v) {
			return 0
		}
		start = 1
	}
	at := start
	for k := start; k < len(cuts) && cuts[k] <= v; k++ {
		at = k
	}
	return at
}
