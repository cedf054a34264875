package search

import (
	"math"
	"strconv"

	"github.com/servetune/servetune/space"
)

// pick is the prior's proposal: with one objective the unmeasured,
// non-busy, fully predicted feasible candidate with the best corrected
// prediction; with several the one whose corrected prediction adds the
// most hypervolume to the measured front.
// The first picks of a multi-objective study are the best of each
// objective in turn: the front's ends are where the hypervolume is, and
// a study's first question is usually the best of the first objective.
func (ps *priorSampler) pick(busy map[string]bool) (space.Config, bool) {
	d := len(ps.sp.Objectives)
	ps.picks++
	if d > 1 && ps.picks > d {
		if c, ok := ps.pickProbe(busy); ok { // prior_front_probe.go
			return c, true
		}
		if c, ok := ps.pickHV(busy); ok {
			return c, true
		}
	}
	return ps.pickBest(busy, (ps.picks-1)%d)
}

// open reports whether the prior may propose candidate k: fully
// predicted feasible, neither measured nor running, and not a twin of a
// measured config — one the prior predicts exactly the same values for
// differs only in knobs the prior says do not matter, so measuring it
// teaches the prior nothing; and in a region where the prior's
// predictions miss, only on its share of the prior's picks (regionTurn).
// A pruned config is open again once revisitable (on Qwen3-8B a dozen attention-backend and
// CUDA-graph variants of one config would otherwise take turns).
func (ps *priorSampler) open(k string, busy map[string]bool) bool {
	cd := ps.cands[k]
	_, ok := ps.estimate(cd)
	if !cd.refined || !ok || busy[k] || !regionTurn(ps.regions.every(cd.cfg), ps.picks) {
		return false
	}
	if ps.told[k] {
		return ps.revisitable(k, cd)
	}
	return !ps.twins[valuesKey(cd.values)]
}

// estimate is the prediction the prior ranks cd by: its full one when it
// predicts cd feasible. A config the memory plan refuses only under the
// full benchmark's load is re-opened, on its screening values, once a
// measured trial has contradicted the memory plan (one it predicted out
// of memory completed): that plan no longer rules a region out.
func (ps *priorSampler) estimate(cd *candidate) ([]float64, bool) {
	switch {
	case cd.feasible:
		return cd.values, true
	case cd.fastOK && ps.trust.memoryContradicted():
		return cd.fast, true
	}
	return nil, false
}

// valuesKey identifies a prediction up to rounding.
func valuesKey(v []float64) string {
	var b []byte
	for _, x := range v {
		b = strconv.AppendFloat(b, x, 'g', 9, 64)
		b = append(b, ' ')
	}
	return string(b)
}

func (ps *priorSampler) pickBest(busy map[string]bool, obj int) (space.Config, bool) {
	var best *candidate
	bestScore := math.Inf(-1)
	for _, k := range ps.order {
		if !ps.open(k, busy) {
			continue
		}
		cd := ps.cands[k]
		vals, _ := ps.estimate(cd)
		if s, ok := ps.score(cd, vals, true, obj); ok && s > bestScore {
			best, bestScore = cd, s
		}
	}
	if best == nil {
		return nil, false
	}
	return best.cfg, true
}

// pickHV maximises the predicted hypervolume improvement over the front
// of measured values; false when no candidate improves it. A neighbour of
// a measured front member is estimated from that member's measurement
// (frontEstimates), any other candidate by its corrected prediction.
func (ps *priorSampler) pickHV(busy map[string]bool) (space.Config, bool) {
	local := ps.frontEstimates(busy)
	var preds [][]float64
	var cds []*candidate
	for _, k := range ps.order {
		if !ps.open(k, busy) {
			continue
		}
		cd := ps.cands[k]
		p, ok := local[k]
		if !ok {
			p = ps.corrected(cd, !cd.feasible)
		}
		cds, preds = append(cds, cd), append(preds, p)
	}
	points := meanPoints(ps.measuredMeans())
	ref := ps.frontRef(append(append([][]float64(nil), preds...), points...))
	if ref == nil {
		return nil, false
	}
	i, _ := bestGain(points, preds, ps.sp.Objectives, ref)
	if i < 0 {
		return nil, false
	}
	return cds[i].cfg, true
}

// frontRef is the reference point of the front of pts: the hypervolume
// then weighs the region where the front lies, not the worst configs.
func (ps *priorSampler) frontRef(pts [][]float64) []float64 {
	all := make([]Point, len(pts))
	for i, p := range pts {
		all[i] = Point{Values: p}
	}
	var front [][]float64
	for _, i := range Front(all, ps.sp.Objectives) {
		front = append(front, pts[i])
	}
	return ReferencePoint(front, ps.sp.Objectives)
}
