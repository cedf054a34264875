package search

import (
	"math"
	"sort"
)

// priorTrust tracks how well the prior has done on the study's real
// trials: whether it ranks configs right (Spearman correlation of
// predicted and measured first objective) and whether its feasibility
// predictions hold.
type priorTrust struct {
	pred, real []float64
	// saidOK counts trials the prior called feasible; failedOK those of
	// them that ran out of memory or were refused.
	saidOK, failedOK int
	// saidBad counts trials the prior called infeasible (explored anyway);
	// ranBad those of them that completed.
	saidBad, ranBad int
}

// minRankTrials is how many measurements the rank check needs.
const minRankTrials = 5

func (pt *priorTrust) tell(o Observation, cd *candidate) {
	infeasible := o.Class == classOOM || o.Class == classInvalid
	switch {
	case cd.feasible:
		pt.saidOK++
		if infeasible {
			pt.failedOK++
		}
	case o.State == Complete || infeasible:
		pt.saidBad++
		if o.State == Complete {
			pt.ranBad++
		}
	}
	if o.State == Complete && cd.feasible && len(o.Values) > 0 && !math.IsNaN(o.Values[0]) {
		pt.pred = append(pt.pred, cd.values[0])
		pt.real = append(pt.real, o.Values[0])
	}
}

// ranks reports whether the prior may keep its share of proposals: until
// minRankTrials measurements it is trusted; then its ranking must agree
// with the measurements (ρ ≥ 0.3).
func (pt *priorTrust) ranks() bool {
	if len(pt.real) < minRankTrials {
		return true
	}
	return spearman(pt.pred, pt.real) >= 0.3
}

// feasibility reports whether predicted-infeasible configs may be
// skipped: not once a config it called infeasible ran, nor when over a
// third of those it called feasible failed (its memory plan is off).
func (pt *priorTrust) feasibility() bool {
	if pt.ranBad > 0 {
		return false
	}
	return pt.failedOK < 2 || 3*pt.failedOK <= pt.saidOK
}

// spearman is the rank correlation of x and y (ties get their mean rank);
// 0 when either is constant.
func spearman(x, y []float64) float64 {
	rx, ry := ranks(x), ranks(y)
	n := float64(len(x))
	var mx, my float64
	for i := range rx {
		mx += rx[i] / n
		my += ry[i] / n
	}
	var sxy, sxx, syy float64
	for i := range rx {
		sxy += (rx[i] - mx) * (ry[i] - my)
		sxx += (rx[i] - mx) * (rx[i] - mx)
		syy += (ry[i] - my) * (ry[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j) / 2
		}
		i = j + 1
	}
	return r
}
