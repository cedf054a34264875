package objective

import (
	"context"
	"maps"
	"math"
	"time"

	"github.com/servetune/servetune/bench"
)

const (
	// rateTolerance ends the bisection once the lowest rate that missed
	// the target is within 2% of the highest that met it.
	rateTolerance = 0.02
	// maxRateSteps bounds a search: low, high and bisection of a 128×
	// range to 2% take 10 steps.
	maxRateSteps = 12
)

// rateSearch decides the rates of a search for the highest request rate
// whose SLO attainment meets the target: low first (missed: nothing in
// range is sustained), then high (met: the whole range is), then
// geometric bisection between the highest rate that met the target and
// the lowest that missed it. It is pure, so its path is table-tested.
type rateSearch struct {
	bench.RateSearch
	// pass is the highest rate measured within target, fail the lowest
	// measured below it; 0 until there is one.
	pass, fail float64
	steps      int
}

// next is the rate to measure next; false when the search is over.
func (s *rateSearch) next() (float64, bool) {
	switch {
	case s.steps >= maxRateSteps:
		return 0, false
	case s.steps == 0:
		return s.Low, true
	case s.pass == 0:
		return 0, false
	case s.steps == 1:
		return s.High, true
	case s.fail == 0 || s.fail <= s.pass*(1+rateTolerance):
		return 0, false
	}
	return math.Sqrt(s.pass * s.fail), true
}

// observe records whether the step at rate met the target.
func (s *rateSearch) observe(rate float64, met bool) {
	s.steps++
	switch {
	case met && rate > s.pass:
		s.pass = rate
	case !met && (s.fail == 0 || rate < s.fail):
		s.fail = rate
	}
}

// met reports whether a step's metrics reach the target attainment.
func (s *rateSearch) met(v map[string]float64) bool {
	a, ok := v[bench.MetricSLOAttainment]
	return ok && a >= s.Attainment
}

// stepFunc benchmarks one step of a rate search: the profile at one
// fixed rate, on the trial's running engine.
type stepFunc func(ctx context.Context, p bench.Profile) (map[string]float64, error)

// searchRate runs a profile's rate search. Its metrics are those of the
// step at the highest rate that met the target (of the first step when
// none did) plus max_rate_under_slo (0 when none did). After each step
// the rate found so far is reported as a checkpoint, so a trial whose
// search falls behind the incumbents' at the same step is pruned.
func searchRate(ctx context.Context, t Trial, res *Result, p bench.Profile, step stepFunc) (map[string]float64, bool, error) {
	s := rateSearch{RateSearch: *p.SearchRate}
	var at map[string]float64
	for rate, ok := s.next(); ok; rate, ok = s.next() {
		q := p
		q.RequestRate, q.SearchRate = rate, nil
		v, err := step(ctx, q)
		if err != nil {
			return found(at, s.pass), false, err
		}
		met := s.met(v)
		s.observe(rate, met)
		if at == nil || met && rate == s.pass {
			at = v
		}
		if s.steps < bench.Checkpoints && t.Report(res, p.Name, s.steps, found(at, s.pass)) {
			return found(at, s.pass), true, nil
		}
	}
	return found(at, s.pass), false, nil
}

// RateSearchDuration bounds how long a profile's rate search sends
// requests, for the trial's time limit: at most maxRateSteps steps, each
// at low or above, each at most max_duration when the profile sets one.
func RateSearchDuration(p bench.Profile) time.Duration {
	step := p.MaxDuration
	if step == 0 && p.SearchRate != nil {
		step = time.Duration(float64(p.NumPrompts+p.Warmup) / p.SearchRate.Low * float64(time.Second))
	}
	return maxRateSteps * step
}

// found is a step's metrics with the rate found added.
func found(at map[string]float64, rate float64) map[string]float64 {
	out := maps.Clone(at)
	if out == nil {
		out = map[string]float64{}
	}
	out[bench.MetricMaxRateUnderSLO] = rate
	return out
}
