package search

import (
	"math"

	"github.com/servetune/servetune/space"
)

// Anchored ranking. The residual model is additive over knob values: it
// corrects a prior that is off by a factor per knob value, not one whose
// error depends on a combination. A B200 taken for an H200 is such a
// prior: it has memory to spare, so the prior's penalty on a smaller
// mem_fraction (less KV cache, fewer running requests) is wrong, and
// wrong by more the larger the batch and the chunk — the optimum (512
// running, mem_fraction 0.75, chunk 32768) is predicted at 20,638 while
// configs 3% below it are predicted up to 27,335, and a knob value's
// mean residual, shrunk while it rests on few trials, cannot reorder
// them in time. What the prior does get right is a config's ratio to a
// one-knob neighbour (most of its error is shared by the two: prior_local.go,
// prior_front.go). So a candidate one knob away from measured configs
// is ranked on their measured residuals — the prior's error where it was
// measured next to it — with the additive residual counting as
// anchorShrink more measurements; a candidate with no measured neighbour
// keeps the additive correction.

// anchorShrink is how many measurements the additive residual weighs in
// a candidate's anchored residual.
const anchorShrink = 1.0

// anchoredResidual is a candidate's log(real / predicted) given its
// measured one-knob neighbours' residuals and the additive model's
// prediction for it.
func anchoredResidual(neighbours []float64, additive float64) float64 {
	s := anchorShrink * additive
	for _, r := range neighbours {
		s += r
	}
	return s / (float64(len(neighbours)) + anchorShrink)
}

// anchors are the measured configs at their means with the prior's full
// prediction for each (nil when it predicted none).
type anchor struct {
	cfg      space.Config
	measured []float64
	pred     []float64
}

func (ps *priorSampler) anchors() []anchor {
	var out []anchor
	for _, m := range ps.measuredMeans() {
		cd := ps.cands[configKey(ps.sp, m.cfg)]
		if cd != nil && cd.feasible {
			out = append(out, anchor{m.cfg, m.values, cd.values})
		}
	}
	return out
}

// anchoredScore is ps.score with the anchored residual in place of the
// additive one.
func (ps *priorSampler) anchoredScore(cd *candidate, vals []float64, obj int, as []anchor) (float64, bool) {
	if obj >= len(vals) || !(vals[obj] > 0) {
		return 0, false
	}
	var rs []float64
	for _, a := range as {
		if _, n := knobDiff(cd.cfg, a.cfg); n == 1 && a.measured[obj] > 0 && a.pred[obj] > 0 {
			rs = append(rs, math.Log(a.measured[obj]/a.pred[obj]))
		}
	}
	s := math.Log(vals[obj]) + anchoredResidual(rs, ps.resid.predict(obj, cd.cfg))
	if ps.sp.Objectives[obj].Direction == space.Minimize {
		s = -s
	}
	return s, true
}
