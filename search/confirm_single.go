package search

import "math"

// A config measured once and read lucky is the report's winner's curse:
// on the Qwen3 family (seed 23, trial 30) a config truly 2.7% below the
// optimum was named on one draw 14% under its truth; on a held-out
// reality a single 26% lucky draw was named over a confirmed config for
// eleven trials. PooledMeans pulls such a mean toward its similar
// configs' model, but when the model fits it too (a twin of good
// configs) nothing stops it. So PickBest does not name a config measured
// once over a config measured more often whose mean is within noise of
// it: the single's lead must exceed confirmZ standard errors of the
// difference of a one-draw and an n-draw mean, CV·√(1 + 1/n), before it
// is believed. The single is not lost: the confirmation measures the
// best mean measured once again at once (confirmFresh), and a second
// measurement that holds the lead names it.

// singleGuard is the pick r unless r is measured once and a config
// measured more often lies within noise cv of it (and within the pooled
// region): then the best such config. Without a measured noise it leaves
// r.
func singleGuard(arms []Arm, r int, cv float64, minimize bool) int {
	if r < 0 || arms[r].N != 1 || cv <= 0 || !(arms[r].Mean > 0) {
		return r
	}
	sign := 1.0
	if minimize {
		sign = -1
	}
	q := -1
	for i, a := range arms {
		if a.N < 2 || !(a.Mean > 0) {
			continue
		}
		lead := sign * math.Log(arms[r].Mean/a.Mean)
		if lead > poolRegion || lead > confirmZ*cv*math.Sqrt(1+1/float64(a.N)) {
			continue
		}
		if q < 0 || sign*math.Log(a.Mean/arms[q].Mean) > 0 {
			q = i
		}
	}
	if q < 0 {
		return r
	}
	return q
}
