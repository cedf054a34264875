package search

import "math"

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
	return Spearman(pt.pred, pt.real) >= 0.3
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
