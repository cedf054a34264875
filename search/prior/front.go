package prior

import (
	"context"
	"math"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Moves along the measured front. With several objectives the prior's
// picks are ranked by the hypervolume they add to the measured front, and
// a pick far from any measured config is only as good as the prior's
// absolute prediction, corrected by a residual averaged over every trial.
// Next to a measured front member the prior knows more: the measured
// values, and the prior's own prediction of that config. A one-knob
// neighbour is estimated as its parent's measured values scaled, objective
// by objective, by the ratio of the prior's predictions of the two
// (localEstimate): whatever the prior gets wrong for both (a faster GPU, a
// wrong efficiency of the engine and parallelism they share) cancels.
// On the lab's realities the front's missing points are such neighbours:
// the next max_running or chunked-prefill step of a measured front member.
//
// frontScreen configs' neighbours are screened per proposal at most (the
// front's newest members first), and the frontRefine neighbours whose
// screening estimate adds the most hypervolume are fully predicted.
const (
	frontScreen = 2
	frontRefine = 6
)

// localEstimate is a config's values estimated from a measured neighbour:
// the neighbour's measured values times the prior's predicted ratio of the
// config to the neighbour, per objective; false when a ratio is undefined.
func localEstimate(measured, predParent, predCand []float64) ([]float64, bool) {
	if len(measured) == 0 || len(predParent) != len(measured) || len(predCand) != len(measured) {
		return nil, false
	}
	out := make([]float64, len(measured))
	for i := range measured {
		if !(predParent[i] > 0) || !(predCand[i] > 0) || !(measured[i] > 0) || math.IsInf(predCand[i], 0) {
			return nil, false
		}
		out[i] = measured[i] * predCand[i] / predParent[i]
	}
	return out, true
}

// hvGain is the hypervolume est adds to the points (front or not).
func hvGain(points [][]float64, est []float64, objs []space.Objective, ref []float64) float64 {
	with := append(append(make([][]float64, 0, len(points)+1), points...), est)
	return search.Hypervolume(with, objs, ref) - search.Hypervolume(points, objs, ref)
}

// bestGain is the index of the estimate that adds the most hypervolume to
// points, and its gain; -1 when none adds any. Ties go to the first.
func bestGain(points, ests [][]float64, objs []space.Objective, ref []float64) (int, float64) {
	best, bestG := -1, 0.0
	for i, e := range ests {
		if g := hvGain(points, e, objs, ref); g > bestG {
			best, bestG = i, g
		}
	}
	return best, bestG
}

// front is the prior's multi-objective pick along the measured front:
// it prepares the front's neighbours at each of the prior's turns and
// picks by expected hypervolume improvement (front_pick.go). It
// keeps no state of its own.
type front struct{ st *state }

// prepare screens the neighbours of the measured front's members
// (frontScreen new ones per proposal) and fully predicts those whose
// screening estimate would add the most hypervolume.
func (f front) prepare(ctx context.Context) {
	st := f.st
	if len(st.sp.Objectives) < 2 {
		return
	}
	parents := st.hist.frontParents()
	fresh := 0
	for _, p := range parents {
		if fresh >= frontScreen {
			break
		}
		if !st.tab.around[search.ConfigKey(st.sp, p.cfg)] {
			st.tab.screenAround(ctx, p.cfg)
			fresh++
		}
	}
	f.refine(ctx, parents)
}

// refineFront fully predicts frontRefine unrefined neighbours of the
// front's members: first those whose screening estimate adds hypervolume,
// most first, then the others, newest member first. Screening alone would
// not do: a shortened benchmark hides what a larger batch gains, so the
// front's next max_running step often screens worse than its parent.
func (f front) refine(ctx context.Context, parents []measuredConfig) {
	st, tab := f.st, f.st.tab
	var gainful []scoredCand
	var rest []*candidate
	points := meanPoints(st.hist.measuredMeans())
	ref := st.frontRef(points)
	seen := map[string]bool{}
	for _, p := range parents {
		pc := tab.cands[search.ConfigKey(st.sp, p.cfg)]
		for _, n := range tab.neighbours(p.cfg) {
			k := search.ConfigKey(st.sp, n)
			cd := tab.cands[k]
			if cd == nil || cd.refined || seen[k] || tab.told[k] || !cd.fastOK {
				continue
			}
			seen[k] = true
			g := 0.0
			if est, ok := localEstimate(p.values, fastOf(pc), cd.fast); ok && ref != nil {
				g = hvGain(points, est, st.sp.Objectives, ref)
			}
			if g > 0 {
				gainful = append(gainful, scoredCand{cd, g})
			} else {
				rest = append(rest, cd)
			}
		}
	}
	tab.refineAll(ctx, frontTodo(gainful, rest, frontRefine))
}

// scoredCand is a candidate with the hypervolume its estimate adds.
type scoredCand struct {
	cd   *candidate
	gain float64
}

// frontTodo is the refinement order: the gainful by gain (stable), then
// the rest in order, at most n.
func frontTodo(gainful []scoredCand, rest []*candidate, n int) []*candidate {
	sort.SliceStable(gainful, func(a, b int) bool { return gainful[a].gain > gainful[b].gain })
	var out []*candidate
	for _, s := range gainful {
		out = append(out, s.cd)
	}
	out = append(out, rest...)
	return out[:min(len(out), n)]
}

func fastOf(cd *candidate) []float64 {
	if cd == nil || !cd.fastOK {
		return nil
	}
	return cd.fast
}

// nearDistance is how many knobs from a measured config a candidate may
// be for its estimate to start from that measurement.
const nearDistance = 2

// estimates are the open candidates within nearDistance knobs of a
// measured config, estimated from the nearest measured ones (the
// geometric mean of their local estimates, each corrected by the pairs
// learnt for the knobs changed): the full predictions when the prior
// predicts both feasible, the screening ones when its memory plan was
// contradicted. A measured config is the best evidence of what its
// near variants do; the residual averaged over the whole study is not.
func (f front) estimates(busy map[string]bool) map[string][]float64 {
	st := f.st
	ms := st.hist.measuredMeans()
	fixes := f.pairFixes(ms)
	out := map[string][]float64{}
	for _, k := range st.tab.order {
		if !st.openAnywhere(k, busy) {
			continue
		}
		if est, ok := f.nearEstimate(st.tab.cands[k], ms, fixes); ok {
			out[k] = est
		}
	}
	return out
}

// nearEstimate is cd's estimate from the measured configs nearest to it
// (at most nearDistance knobs away); false when none is that near.
func (f front) nearEstimate(cd *candidate, ms []measuredMean, fixes map[transition]*pairFix) ([]float64, bool) {
	var ests [][]float64
	best := nearDistance + 1
	for _, m := range ms {
		// Counted before the changes are formatted: most measured configs
		// are too far to matter (issue 49).
		n := knobDistance(m.cfg, cd.cfg)
		if n == 0 || n > best {
			continue
		}
		var ts []transition
		if len(fixes) > 0 { // without a fix the changes correct nothing
			ts, _ = knobDiff(m.cfg, cd.cfg)
		}
		pc := f.st.tab.cands[search.ConfigKey(f.st.sp, m.cfg)]
		if pc == nil {
			continue
		}
		est, ok := f.localOf(m.measuredConfig, pc, cd)
		if !ok {
			continue
		}
		for _, t := range ts {
			est = fixes[t].corrected(est)
		}
		if n < best {
			best, ests = n, nil
		}
		ests = append(ests, est)
	}
	if len(ests) == 0 {
		return nil, false
	}
	return geoMean(ests), true
}

// geoMean is the per-objective geometric mean of positive vectors.
func geoMean(vs [][]float64) []float64 {
	out := make([]float64, len(vs[0]))
	for i := range out {
		s := 0.0
		for _, v := range vs {
			s += math.Log(v[i])
		}
		out[i] = math.Exp(s / float64(len(vs)))
	}
	return out
}

// localOf is cd's estimate from measured parent p (candidate pc): on full
// predictions when both are predicted feasible, else on screening ones.
func (f front) localOf(p measuredConfig, pc, cd *candidate) ([]float64, bool) {
	if pc.feasible && cd.feasible {
		return localEstimate(p.values, pc.values, cd.values)
	}
	if _, ok := f.st.estimate(cd); ok && pc.fastOK && cd.fastOK {
		return localEstimate(p.values, pc.fast, cd.fast)
	}
	return nil, false
}
