package search

import (
	"math"
	"slices"
)

// priorTrust tracks how well the prior has done on the study's real
// trials: whether it ranks configs right (Spearman correlation of
// predicted and measured first objective), how far its corrected
// predictions miss, and whether its feasibility predictions hold.
type priorTrust struct {
	pred, real []float64
	// errs are |log(measured / predicted)| on the first objective, each
	// with the residual correction learnt before the trial: the error the
	// prior's own proposals were ranked with.
	errs []float64
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
	infeasible := o.Class == ClassOOM || o.Class == ClassInvalid
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

// Error-share constants: the prior keeps one proposal in priorEvery while
// the median of its last errWindow errors is within errTolerance (about
// three times the measurement noise of a quiet machine, so noise alone
// does not cost it its share); beyond it, its turns thin out in
// proportion to the error, down to one in maxEvery.
const (
	minErrTrials = 5
	errWindow    = 10
	errTolerance = 0.15
	maxEvery     = 10
)

// priorEveryFor is one in how many proposals the prior makes after the
// warm start, given its measured prediction errors (oldest first).
func priorEveryFor(errs []float64) int { return shareFor(errs, minErrTrials) }

// shareFor is priorEveryFor once at least minN errors exist.
func shareFor(errs []float64, minN int) int {
	if len(errs) < minN {
		return priorEvery
	}
	m := recentMedian(errs)
	if !(m > errTolerance) { // NaN cannot reach here: tell drops it
		return priorEvery
	}
	return min(maxEvery, int(math.Ceil(float64(priorEvery)*m/errTolerance)))
}

// recentMedian is the median of the last errWindow errors (at least one).
func recentMedian(errs []float64) float64 {
	recent := append([]float64(nil), errs[max(0, len(errs)-errWindow):]...)
	slices.Sort(recent)
	m := recent[len(recent)/2]
	if len(recent)%2 == 0 {
		m = (recent[len(recent)/2-1] + m) / 2
	}
	return m
}

// every is one in how many proposals the prior makes: fewer as its
// corrected predictions miss by more, and at most one in distrustEvery
// once its ranking disagrees with the measurements.
func (pt *priorTrust) every() int {
	every := priorEveryFor(pt.errs)
	if !pt.ranks() {
		every = max(every, distrustEvery)
	}
	return every
}

// miss records a measured trial's prediction error (log ratio of the
// measured to the corrected prediction).
func (pt *priorTrust) miss(logRatio float64) {
	if !math.IsNaN(logRatio) && !math.IsInf(logRatio, 0) {
		pt.errs = append(pt.errs, math.Abs(logRatio))
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

// memoryContradicted reports whether a config the prior predicted
// infeasible completed.
func (pt *priorTrust) memoryContradicted() bool { return pt.ranBad > 0 }

// feasibility reports whether predicted-infeasible configs may be
// skipped: not once a config it called infeasible ran, nor when over a
// third of those it called feasible failed (its memory plan is off).
func (pt *priorTrust) feasibility() bool {
	if pt.memoryContradicted() {
		return false
	}
	return pt.failedOK < 2 || 3*pt.failedOK <= pt.saidOK
}
