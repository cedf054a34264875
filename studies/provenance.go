package studies

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// newTrial is the record of a trial about to begin: why it runs, what
// runs it (the simulator for a GPU type the target simulates: RunnerOf,
// as objective.ByGPU routes it), what the prior predicted for it, and the measurement it reuses
// when its config has been measured enough already.
func (l *loop) newTrial(n next) store.Trial {
	t := store.Trial{Config: n.cfg, Origin: n.origin, RetryOf: n.retryOf, Start: l.Now(), Runner: l.Space.Target.RunnerOf(n.cfg), Prediction: n.prediction}
	if prev := l.measured(n.cfg); prev != nil && !isRemeasure(n.origin) {
		t.Origin, t.ReusedFrom = "reused", prev.Number
	}
	return t
}

// explain is the origin and prediction of a sampler's proposal: the
// prior's when it chose the config, the sampler's otherwise.
func explain(s search.Sampler, n next) next {
	ex, ok := s.(search.Explainer)
	if !ok {
		return n
	}
	p, ok := ex.Explain(n.cfg)
	if !ok {
		return n
	}
	if p.Origin != "" {
		n.origin = p.Origin
	}
	n.prediction = &store.Prediction{Feasible: p.Feasible}
	if allFinite(p.Predicted) {
		n.prediction.Values = p.Predicted
		n.prediction.Intervals = storedIntervals(p.Intervals)
	}
	return n
}

// storedIntervals are the prior's intervals as the store keeps them: an
// interval with a bound that is not finite is dropped (absent, never
// NaN), and none at all when none is left.
func storedIntervals(ivs []*search.Interval) []*store.Interval {
	var out []*store.Interval
	stated := false
	for _, iv := range ivs {
		var s *store.Interval
		if iv != nil && allFinite([]float64{iv.Lo80, iv.Hi80, iv.Lo95, iv.Hi95}) {
			s = &store.Interval{Lo80: iv.Lo80, Hi80: iv.Hi80, Lo95: iv.Lo95, Hi95: iv.Hi95}
			stated = true
		}
		out = append(out, s)
	}
	if !stated {
		return nil
	}
	return out
}

func allFinite(xs []float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return len(xs) > 0
}

// runnerOf is what measured the trials: the runner every trial that
// records one names, "mixed" when they differ, the target's when none
// records one (studies from before runners were recorded).
func runnerOf(sp *space.Space, trials []store.Trial) string {
	runner := ""
	for _, t := range trials {
		r := trialRunner(t)
		switch {
		case r == "" || r == runner:
		case runner == "":
			runner = r
		default:
			return "mixed"
		}
	}
	if runner == "" {
		runner = sp.Target.Runner
	}
	return runner
}

// trialRunner is what ran t: recorded, or "process" when it recorded the
// command its engine ran (studies from before runners were recorded).
func trialRunner(t store.Trial) string {
	if t.Runner == "" && (t.Ran != nil || t.Fingerprint != nil) {
		return "process"
	}
	return t.Runner
}

// FillRunner gives trials stored before runners were recorded the
// runner of the target they ran under.
func FillRunner(sp *space.Space, trials []store.Trial) {
	for i := range trials {
		if trials[i].Runner = trialRunner(trials[i]); trials[i].Runner == "" && trials[i].State != store.Running {
			trials[i].Runner = sp.Target.Runner
		}
	}
}
