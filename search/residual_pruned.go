package search

import (
	"math"

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

// prunedShrink is how many pruned projections a knob value's pruned
// deviation is worth half its weight: less than a completed trial's
// shrink, since it is the only evidence there is for that value.
const prunedShrink = 0.5

// addPruned records a pruned trial's projected log miss v on objective obj.
func (r *residual) addPruned(obj int, c space.Config, v float64) {
	if obj >= len(r.obj) || math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	o := &r.obj[obj]
	if o.pSum == nil {
		o.pSum, o.pN = map[string]float64{}, map[string]int{}
	}
	if e, ok := c[engineProbeKnob]; ok {
		k := engineProbeKnob + "=" + space.FormatValue(e)
		o.pSum[k] += v
		o.pN[k]++
	}
}

// prunedDev is the deviation from mean that the pruned trials give the
// unmeasured knob values of keys: that of the one with the most pruned
// projections (the first on a tie), shrunk; false when none has any.
func (o *residualObj) prunedDev(keys []string, mean float64) (float64, bool) {
	best := ""
	for _, k := range keys {
		if o.byN[k] == 0 && o.pN[k] > o.pN[best] {
			best = k
		}
	}
	n := o.pN[best]
	if n == 0 {
		return 0, false
	}
	dev := o.pSum[best]/float64(n) - mean
	return dev * float64(n) / (float64(n) + prunedShrink), true
}
