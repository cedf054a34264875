package prior

import (
	"context"
	"math"
	"math/rand"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// state is what the prior's proposers share and read: the candidate
// table, what the study measured, and how far the prior is trusted
// (overall, by region, and in its memory plan). Tell writes it; the
// proposers read it and keep their own state themselves.
type state struct {
	sp    *space.Space
	prior search.Prior
	tab   *table
	hist  *history
	trust priorTrust
	// regions is the trust per region (region.go); revisits the
	// pruned configs the prior may propose again (revisit.go).
	regions  *regionTrust
	revisits revisits
	// memory is the memory plan learnt from the trials (memory.go),
	// nil when the prior cannot be asked about other machines.
	memory *memoryModel
	asked  int // proposals so far
	picks  int // the prior's own proposals so far
}

func newState(sp *space.Space, p search.Prior, rng *rand.Rand) *state {
	return &state{sp: sp, prior: p, tab: newTable(sp, p, rng), hist: newHistory(sp),
		regions: newRegionTrust(), revisits: revisits{}, memory: newMemoryModel(p)}
}

// startUp screens the known configs (a resumed study's screening, kept
// with it) and enough random ones to make screenStart, climbs to the
// prior's own optima and fully predicts the best screened.
func (st *state) startUp(ctx context.Context, known []space.Config) {
	st.tab.screenAll(ctx, known)
	st.tab.screen(ctx, screenStart-len(st.tab.order))
	st.tab.climb(ctx, st.memoryOpen)
	st.tab.refine(ctx, len(st.sp.Objectives)*2*refineTop, st.memoryOpen)
	st.climbFull(ctx)
}

// open reports whether the prior may propose candidate k: fully
// predicted feasible, neither measured nor running, and not a twin of a
// measured config — one the prior predicts exactly the same values for
// differs only in knobs the prior says do not matter, so measuring it
// teaches the prior nothing; and in a region where the prior's
// predictions miss, only on its share of the prior's picks (regionTurn).
// A pruned config is open again once revisitable (on Qwen3-8B a dozen attention-backend and
// CUDA-graph variants of one config would otherwise take turns).
func (st *state) open(k string, busy map[string]bool) bool {
	return st.regionOpen(st.tab.cands[k]) && st.openAnywhere(k, busy)
}

// regionOpen reports whether the prior's current pick may go to cd's
// regions (regionTurn).
func (st *state) regionOpen(cd *candidate) bool {
	return regionTurn(st.regions.everyOf(cd), st.picks)
}

// openAnywhere is open without the regions' shares.
func (st *state) openAnywhere(k string, busy map[string]bool) bool {
	cd := st.tab.cands[k]
	_, ok := st.estimate(cd)
	if !cd.refined || !ok || busy[k] {
		return false
	}
	if st.tab.told[k] {
		return st.revisitable(k, cd)
	}
	return !st.tab.twins[valuesKey(cd.values)]
}

// estimate is the prediction the prior ranks cd by: its full one when it
// predicts cd feasible. A config the memory plan refuses only under the
// full benchmark's load is re-opened, on its screening values, once a
// measured trial has contradicted the memory plan (one it predicted out
// of memory completed): that plan no longer rules a region out.
func (st *state) estimate(cd *candidate) ([]float64, bool) {
	switch {
	case cd.feasible:
		return cd.values, true
	case cd.fastOK && st.trust.memoryContradicted():
		return cd.fast, true
	}
	return nil, false
}

// bestWhere is the candidate keep admits whose estimate scores best on
// objective obj (ties: the first in screening order); false when none.
// The prior's pick, its engine probes and local search's engine probe
// all choose so.
func (st *state) bestWhere(obj int, keep func(k string, cd *candidate) bool) (space.Config, bool) {
	var best *candidate
	bestScore := math.Inf(-1)
	for _, k := range st.tab.order {
		cd := st.tab.cands[k]
		if !keep(k, cd) {
			continue
		}
		vals, _ := st.estimate(cd)
		if s, ok := st.tab.score(cd, vals, true, obj); ok && s > bestScore {
			best, bestScore = cd, s
		}
	}
	if best == nil {
		return nil, false
	}
	return best.cfg, true
}

// pickBest is the open candidate the prior rates best on objective obj.
func (st *state) pickBest(busy map[string]bool, obj int) (space.Config, bool) {
	return st.bestWhere(obj, func(k string, _ *candidate) bool { return st.open(k, busy) })
}

// climbFull moves each objective's best fully predicted config to its
// best one-knob neighbour until it stays (at most climbSteps times).
func (st *state) climbFull(ctx context.Context) {
	for obj := range st.sp.Objectives {
		for range climbSteps {
			c, ok := st.pickBest(nil, obj)
			if !ok {
				break
			}
			st.tab.refineNear(ctx, c)
			if n, _ := st.pickBest(nil, obj); search.ConfigKey(st.sp, n) == search.ConfigKey(st.sp, c) {
				break
			}
		}
	}
}

// frontRef is the reference point of the front of pts: the hypervolume
// then weighs the region where the front lies, not the worst configs.
func (st *state) frontRef(pts [][]float64) []float64 {
	all := make([]search.Point, len(pts))
	for i, p := range pts {
		all[i] = search.Point{Values: p}
	}
	var front [][]float64
	for _, i := range search.Front(all, st.sp.Objectives) {
		front = append(front, pts[i])
	}
	return search.ReferencePoint(front, st.sp.Objectives)
}

// failureDoubted reports whether the prior's failure prediction for c no
// longer rules it out: its memory plan was contradicted, globally or in
// c's memory regions.
func (st *state) failureDoubted(c space.Config) bool {
	return !st.trust.feasibility() || st.regions.memoryWrong(c)
}

// tellTold records that c was told and what the trial says of the
// prior's feasibility prediction (overall, by region, in the memory
// plan) and of a pruned config; it returns c's candidate, fully
// predicted.
func (st *state) tellTold(ctx context.Context, o search.Observation, c space.Config) *candidate {
	k := search.ConfigKey(st.sp, c)
	st.tab.told[k] = true
	cd := st.tab.predict(ctx, c)
	st.trust.tell(o, cd)
	st.tellRegions(o, c, cd)
	st.revisits.tell(k, o.State == search.Pruned, len(st.hist.measured))
	st.tellMemory(o, c)
	if cd.feasible {
		st.tab.twins[valuesKey(cd.values)] = true
	}
	return cd
}

// tellMeasured learns from a trial's measured values against cd, its
// prediction: a completed trial joins the history, and its miss the
// trust and the residual (the miss is measured against the residual
// learnt before it); a pruned one's projection teaches the residual its
// engine. It reports whether the trial completed.
func (st *state) tellMeasured(o search.Observation, c space.Config, cd *candidate) bool {
	done := o.State == search.Complete && len(o.Values) == len(st.sp.Objectives) && !search.HasNaN(o.Values)
	if done {
		st.hist.complete(c, o.Values)
	}
	if done && cd.feasible && o.Values[0] > 0 && cd.values[0] > 0 {
		miss := math.Log(o.Values[0]/cd.values[0]) - st.tab.resid.predict(0, c)
		st.trust.miss(miss)
		st.regions.miss(c, math.Abs(miss))
	}
	if o.State == search.Pruned && len(o.Values) == len(st.sp.Objectives) {
		mc := measuredConfig{c, o.Values}
		st.hist.prunedCfgs = append(st.hist.prunedCfgs, mc)
		st.tab.learnPruned(mc, cd)
	}
	if done && cd.feasible {
		st.tab.learn(c, o.Values, cd)
	}
	return done
}
