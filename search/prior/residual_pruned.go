package prior

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A pruned trial's projected values are partial evidence, but for a knob
// value no completed trial had they are the only evidence: without them
// the residual corrects that value by the completed trials' mean miss,
// another engine's. On the Qwen3-8B family's seed 63 SGLang runs at twice
// its forecast and vLLM within 3% of its own; every vLLM trial was pruned,
// so vLLM FP8 (the optimum) was corrected by SGLang's ×2 and first
// measured at trial 34 (docs/benchmarks.md, "Issue 21, tenth pass"). So
// the pruned trials' projected misses are kept per engine, and a config
// of an engine no completed trial ran takes the pruned deviation of its
// engine, weighted n/(n+prunedShrink). Only the engine: kept for every
// knob value, pruned projections moved h200-is-b200's memory steps and
// cost its seeds 41–60 median at 20 trials 0.0 → 3.1%.

// prunedShrink is how many pruned projections an engine's pruned
// deviation is worth half its weight: less than a completed trial's
// shrink, since it is the only evidence there is for that engine.
const prunedShrink = 0.5

// addPruned records a pruned trial's projected log miss v on objective
// obj against its engine (nothing for a space without an engine knob).
func (r *residual) addPruned(obj int, c space.Config, v float64) {
	e, ok := c[engineProbeKnob]
	if obj >= len(r.obj) || !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	k := search.KnobKey(engineProbeKnob, e)
	r.ver++
	r.obj[obj].pSum[k] += v
	r.obj[obj].pN[k]++
}

// prunedDev is the deviation from mean that c's engine takes from its
// pruned trials, shrunk; false when a completed trial ran that engine or
// none of its trials was pruned with a projection. Such a config gets no
// interpolated trend either (predict): the levels it would interpolate
// were measured on another engine.
func (o *residualObj) prunedDev(c space.Config, mean float64) (float64, bool) {
	e, ok := c[engineProbeKnob]
	if !ok {
		return 0, false
	}
	k := search.KnobKey(engineProbeKnob, e)
	n := o.pN[k]
	if n == 0 || o.byN[k] > 0 {
		return 0, false
	}
	dev := o.pSum[k]/float64(n) - mean
	return dev * float64(n) / (float64(n) + prunedShrink), true
}

// learnPruned adds a pruned trial's projected misses against cd, its
// prediction on the current machine, to the residual.
func (t *table) learnPruned(mc measuredConfig, cd *candidate) {
	if !cd.feasible {
		return
	}
	for i, v := range mc.values {
		if v > 0 && cd.values[i] > 0 {
			t.resid.addPruned(i, mc.cfg, math.Log(v/cd.values[i]))
		}
	}
}
