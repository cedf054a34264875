package bench

import "math"

// problems checks an SLO's bounds: each given bound is a positive
// number of milliseconds, and an SLO bounds something.
func (s *SLO) problems(bad func(key, format string, a ...any)) {
	if s == nil {
		return
	}
	for _, b := range []struct {
		key string
		v   float64
	}{{"slo.ttft_ms", s.TTFTMs}, {"slo.tpot_ms", s.TPOTMs}, {"slo.e2el_ms", s.E2ELMs}} {
		if b.v < 0 || math.IsNaN(b.v) || math.IsInf(b.v, 0) {
			bad(b.key, "must be a positive number of milliseconds, not %v", b.v)
		} else if b.v > MaxSLOMs {
			bad(b.key, "is %v ms, longer than the %v a profile may run: it would bound nothing", b.v, MaxSpan)
		}
	}
	if *s == (SLO{}) {
		bad("slo", "bounds nothing: give ttft_ms, tpot_ms or e2el_ms")
	}
}

// problems checks a rate search's bounds: a target attainment in (0, 1]
// and a finite range 0 < low < high.
func (r *RateSearch) problems(bad func(key, format string, a ...any)) {
	if r == nil {
		return
	}
	if !(r.Attainment > 0 && r.Attainment <= 1) {
		bad("search_rate.attainment", "must be in (0, 1], not %v", r.Attainment)
	}
	if !(r.Low > 0) || math.IsInf(r.Low, 0) {
		bad("search_rate.low", "must be a positive rate (req/s), not %v", r.Low)
	}
	if !(r.High > r.Low) || math.IsInf(r.High, 0) {
		bad("search_rate.high", "must be a finite rate above low (%v), not %v", r.Low, r.High)
	}
}
