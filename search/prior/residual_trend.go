package prior

import (
	"math"
	"strconv"
	"strings"
)

// A knob value no trial had gets no deviation of its own in the residual
// model: it is predicted at the global mean. For a numeric knob whose
// measured values bracket it, that throws away a trend the trials show.
// On h200-is-b200 the prior's error grows as mem_fraction falls (the
// card's memory is too small, so it overrates the KV cache's share):
// measured at 0.85 and 0.7 the log ratio is about 0.7 and 1.4, and the
// levels between them, where the optimum is, would be ranked as if they
// erred like the average trial (mostly 0.85). So an unmeasured value
// between two measured ones takes the linear interpolation of their
// (shrunk) deviations; outside the measured range it keeps none.

// level is a measured value of one knob and its shrunk deviation.
type level struct {
	x, dev float64
}

// interpolate is the deviation at x given measured levels (any order):
// linear between the nearest level below and the nearest above; 0 when
// x is not strictly inside their range.
func interpolate(levels []level, x float64) float64 {
	lo, hi := math.Inf(-1), math.Inf(1)
	var dlo, dhi float64
	for _, l := range levels {
		if l.x < x && l.x > lo {
			lo, dlo = l.x, l.dev
		}
		if l.x > x && l.x < hi {
			hi, dhi = l.x, l.dev
		}
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0
	}
	return dlo + (dhi-dlo)*(x-lo)/(hi-lo)
}

// numericKey splits "knob=value" into the knob and its numeric value.
func numericKey(k string) (string, float64, bool) {
	name, v, ok := strings.Cut(k, "=")
	if !ok {
		return "", 0, false
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return "", 0, false
	}
	return name, x, true
}

// trend is the interpolated deviation of the unmeasured "knob=value" k
// from the measured values of its knob; 0 when k is not numeric or not
// bracketed.
func (o *residualObj) trend(k string, mean float64) float64 {
	name, x, ok := numericKey(k)
	if !ok {
		return 0
	}
	var levels []level
	for mk, n := range o.byN {
		mname, mx, ok := numericKey(mk)
		if !ok || mname != name || n == 0 || n == o.n {
			continue
		}
		dev := o.bySum[mk]/float64(n) - mean
		levels = append(levels, level{mx, dev * float64(n) / (float64(n) + shrink)})
	}
	return interpolate(levels, x)
}
