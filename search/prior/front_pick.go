package prior

import "github.com/servetune/servetune/space"

// The prior's two-objective pick, by expected hypervolume improvement
// (issue 21, branch hvx6). On h200-extreme (20 seeds, main 410692a:
// HV@40 94.6%, worst 83.5%) the missed hypervolume was one band of the
// true front on 16–17 of 20 seeds (15–19 of seeds 21–40): SGLang with DP attention and DeepEP at
// chunked_prefill 32768, mem_fraction 0.75 (11,690 tok/s @ 95.6 ms,
// 10,787 @ 90.5, 6,835 @ 74.3), one knob from configs the studies had
// measured (chunked_prefill 16384). The prior had them fully predicted,
// feasible, not measured, and with the largest estimated gain — 3 to 10
// times the gain of the pick it made — but never open:
//   - the learned memory plan (memory.go), after the prior's first
//     pick ran out of memory at mem_fraction 0.85, gave them a 0.24–0.44
//     chance of starting, and the prior does not pick a config under 0.5
//     (memoryBusy); in the reality they start;
//   - from about the tenth trial the region dp-attention+ep/deepep lost
//     the prior's turns (its absolute predictions miss by 40%:
//     DeepEP's exchange is half as fast as the card's), leaving its
//     candidates one pick in ten.
// Neither rule is wrong where it was made: a pick ranked by an absolute
// prediction is only as good as that prediction, and a config that fails
// costs a trial. But a front move next to a measured config is estimated
// from that measurement (nearEstimate): the region's miss cancels in the
// prior's ratio of the two. And a gain that large is worth a trial at a
// chance of one in three. So an estimate anchored on a measurement keeps
// its turn in a distrusted region, and each gain is weighed by the
// learned plan's chance that the config starts (1 where it expects it to
// start, as before; 0 under exploreFloor, which the evidence ruled out):
// the expected improvement of constrained Bayesian optimisation, gain ×
// probability of feasibility.

// pickHV maximises the expected hypervolume improvement over the front
// of measured values; false when no candidate improves it. A candidate
// within nearDistance knobs of a measured config is estimated from that
// measurement (front.estimates), any other by its corrected prediction.
// Each gain is weighed by the chance the candidate starts (front.chance).
func (f front) pickHV(busy map[string]bool) (space.Config, bool) {
	st := f.st
	local := f.estimates(busy)
	var preds [][]float64
	var weights []float64
	var cds []*candidate
	for _, k := range st.tab.order {
		if !st.openAnywhere(k, busy) {
			continue
		}
		cd := st.tab.cands[k]
		p, anchored := local[k]
		if !anchored {
			if !st.regionOpen(cd) {
				continue
			}
			p = st.tab.corrected(cd, !cd.feasible)
		}
		w := f.chance(k, cd)
		if !(w > 0) {
			continue
		}
		cds, preds, weights = append(cds, cd), append(preds, p), append(weights, w)
	}
	points := meanPoints(st.hist.measuredMeans())
	ref := st.frontRef(append(append([][]float64(nil), preds...), points...))
	if ref == nil {
		return nil, false
	}
	i := bestExpectedGain(points, preds, weights, st.sp.Objectives, ref)
	if i < 0 {
		return nil, false
	}
	return cds[i].cfg, true
}

// chance is the weight of a candidate's hypervolume gain: 1 unless
// the learned memory plan, once a trial contradicted the card's, doubts
// it starts (startWeight).
func (f front) chance(k string, cd *candidate) float64 {
	if !f.st.contradicted() {
		return 1
	}
	p, decided := f.st.memory.chance(k, cd.cfg, cd.feasible)
	return startWeight(p, decided)
}

// startWeight is a gain's weight given the learned plan's chance p that
// the config starts (decided false: memory says nothing about it).
func startWeight(p float64, decided bool) float64 {
	switch {
	case !decided || p > 0.5:
		return 1
	case p < exploreFloor:
		return 0
	}
	return p
}

// bestExpectedGain is the index of the estimate whose gain over points,
// times its weight, is the largest; -1 when none adds any. Ties go to
// the first.
func bestExpectedGain(points, ests [][]float64, weights []float64, objs []space.Objective, ref []float64) int {
	best, bestG := -1, 0.0
	for i, e := range ests {
		if g := weights[i] * hvGain(points, e, objs, ref); g > bestG {
			best, bestG = i, g
		}
	}
	return best
}
