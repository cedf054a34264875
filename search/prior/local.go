package prior

import (
	"context"
	"math"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Local search around the measured incumbent. A prior that is wrong about
// a whole landscape (a B200 taken for an H200, a DeepEP exchange slower
// than calibrated) still ranks a config's close variants well: most of
// its error is shared by configs that differ in one knob, and the
// residual model removes what the measured ones taught it. So once the
// prior's measured error is beyond the noise, or its own picks are spent,
// proposals step from the best measured config to its unmeasured one-knob
// neighbours (two-knob when none is left), best corrected prediction
// first, skipping those the prior predicts to fail while its memory plan
// holds. The steps take one in localEvery of the turns the model-free
// sampler would get; the prior's own turns keep thinning out with its
// error (priorTrust.every), so the hand-over to the sampler stays as fast
// as the evidence says, and the local steps spend measurements where they
// are most likely to beat the incumbent: next to it. Multi-objective
// studies keep their hypervolume picks (an incumbent of one objective is
// not the front).

// localEvery: while local search is due, one in localEvery of the inner
// sampler's turns goes to a neighbour of the incumbent. One in 2 moved two
// of the widened family's 20 seeds at 30 trials by taking the sampler's
// finds (median 1.7% -> 2.4%); one in 3 keeps h200-is-b200's gain at 40
// trials and the family's at 30 (docs/benchmarks.md, "Issue 21, second pass").
const localEvery = 3

// localRefine is how many neighbours a local step may fully predict.
const localRefine = 4

// localSearch is the pipeline's local-search stage: it counts the turns
// it has seen while due, and keeps the completed trials' configs and
// first-objective values.
type localSearch struct {
	st    *state
	turns int
	cfgs  []space.Config
	vals  []float64
}

// localNear is how far (log ratio) below the best measured value a
// measured config may be and still be stepped from: about two
// measurement-noise sigmas, so the configs noise cannot tell from the
// incumbent are all its starting points, not only the luckiest.
const localNear = 0.1

// tell records a completed trial.
func (ls *localSearch) tell(c space.Config, v float64) {
	if v > 0 && !math.IsInf(v, 0) {
		ls.cfgs, ls.vals = append(ls.cfgs, c), append(ls.vals, v)
	}
}

// near is the measured configs within localNear of the best, best first.
func (ls *localSearch) near(o space.Objective) []space.Config {
	idx := nearBest(ls.vals, o.Direction == space.Minimize, localNear)
	out := make([]space.Config, len(idx))
	for i, j := range idx {
		out[i] = ls.cfgs[j]
	}
	return out
}

// nearBest is the indices of the positive values within tol (log ratio)
// of the best, best first (ties in order).
func nearBest(vals []float64, minimize bool, tol float64) []int {
	sign := 1.0
	if minimize {
		sign = -1
	}
	var idx []int
	for i, v := range vals {
		if v > 0 {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return sign*vals[idx[a]] > sign*vals[idx[b]] })
	var out []int
	for _, i := range idx {
		if sign*(math.Log(vals[idx[0]])-math.Log(vals[i])) <= tol {
			out = append(out, i)
		}
	}
	return out
}

// localScore adds to a neighbour's corrected score (log space) an
// optimism bonus of the prior's measured error when the neighbour sets a
// knob to a value no measured trial had: the residual model corrects only
// the values it has seen, so an unseen one is as uncertain as the prior
// is wrong, and a large error must not keep local search on the knob
// values already measured.
func localScore(score, errScale float64, unseen bool) float64 {
	if unseen && errScale > 0 {
		return score + errScale
	}
	return score
}

// recentMedianOr0 is recentMedian, 0 without errors.
func recentMedianOr0(errs []float64) float64 {
	if len(errs) == 0 {
		return 0
	}
	return recentMedian(errs)
}

// unseen reports whether c sets a knob to a value no completed trial the
// residual model learnt from had.
func (ls *localSearch) unseen(c space.Config) bool {
	o := ls.st.tab.resid.obj[0]
	for _, k := range search.KnobKeys(c) {
		if o.byN[k] == 0 {
			return true
		}
	}
	return false
}

// localDue decides whether local search takes part in the proposals: an
// incumbent exists, the study has one objective, and the prior has been
// caught wrong beyond the noise (its share thinned, or its ranking fails).
func localDue(errs []float64, ranks, incumbent bool, objectives int) bool {
	if !incumbent || objectives != 1 {
		return false
	}
	return priorEveryFor(errs) > priorEvery || !ranks
}

// localTurn decides whether the turn-th inner turn while due is local.
func localTurn(turn int) bool { return turn%localEvery == 0 }

// proposal is a local step, recorded as the prior's (see step).
func (ls *localSearch) proposal(ctx context.Context, t proposalTurn) (space.Config, string, error) {
	if c, ok := ls.step(ctx, t.keys, t.prior); ok {
		return c, "prior", nil
	}
	return nil, "", nil
}

// step proposes a neighbour of the incumbent when local search has the
// turn: on the prior's turn whose picks are spent (spent), or on one in
// localEvery of the sampler's turns once localDue.
func (ls *localSearch) step(ctx context.Context, taken map[string]bool, spent bool) (space.Config, bool) {
	st := ls.st
	if st.hist.incumbent == nil || len(st.sp.Objectives) != 1 {
		return nil, false
	}
	due := localDue(st.trust.errs, st.trust.ranks(), true, 1)
	if !spent {
		if !due {
			return nil, false
		}
		ls.turns++
		if !localTurn(ls.turns) {
			return nil, false
		}
	}
	if due {
		if c, ok := ls.probe(ctx, taken); ok { // local_engine.go
			return c, true
		}
	}
	one := ls.around(ctx, ls.near(st.sp.Objectives[0]))
	if c, ok := ls.bestLocal(ctx, one, taken); ok {
		return c, true
	}
	return ls.bestLocal(ctx, ls.around(ctx, one), taken)
}

// around screens and returns the one-knob neighbours of the given
// configs: of the starting points a one-knob step, of those a two-knob.
func (ls *localSearch) around(ctx context.Context, cs []space.Config) []space.Config {
	var out []space.Config
	for _, c := range cs {
		ls.st.tab.screenAround(ctx, c)
		out = append(out, ls.st.tab.neighbours(c)...)
	}
	return out
}

// bestLocal is the open neighbour among cs with the best corrected
// prediction: ranked on screening, checked on the full prediction (some
// configs fail only under the full benchmark's load).
func (ls *localSearch) bestLocal(ctx context.Context, cs []space.Config, taken map[string]bool) (space.Config, bool) {
	st, tab := ls.st, ls.st.tab
	var ranked []localCand
	seen := map[string]bool{}
	for _, c := range cs {
		k := search.ConfigKey(st.sp, c)
		cd := tab.cands[k]
		if cd == nil || seen[k] || tab.told[k] || taken[k] {
			continue
		}
		seen[k] = true
		s, ok := tab.score(cd, cd.fast, cd.fastOK || st.failureDoubted(cd.cfg), 0)
		s = localScore(s, recentMedianOr0(st.trust.errs), ls.unseen(cd.cfg))
		ranked = append(ranked, localCand{key: k, score: s, ok: ok})
	}
	bar := math.Inf(-1)
	if inc := tab.cands[search.ConfigKey(st.sp, st.hist.incumbent)]; inc != nil {
		if s, ok := tab.score(inc, inc.fast, inc.fastOK, 0); ok {
			bar = s
		}
	}
	for i, idx := range rankLocal(ranked, bar) {
		if i >= localRefine {
			break
		}
		cd := tab.predict(ctx, tab.cands[ranked[idx].key].cfg)
		if ctx.Err() != nil {
			return nil, false
		}
		if ls.open(cd) {
			return cd.cfg, true
		}
	}
	return nil, false
}

// open reports whether a fully predicted neighbour may be measured:
// predicted feasible and no twin of a measured config; or predicted to
// fail where that prediction is doubted — the memory plan was
// contradicted, or (marginal) the config fails only under the full
// benchmark's load while the prior's measured error says its capacity
// model is off (a B200 taken for an H200 has memory to spare).
func (ls *localSearch) open(cd *candidate) bool {
	st := ls.st
	if !cd.feasible {
		marginal := cd.fastOK && localDue(st.trust.errs, st.trust.ranks(), true, 1)
		return marginal || st.failureDoubted(cd.cfg)
	}
	return !st.tab.twins[valuesKey(cd.values)]
}

// localCand is a neighbour's corrected screening score (log space, larger
// is better); ok false when the prior has no usable prediction.
type localCand struct {
	key   string
	score float64
	ok    bool
}

// rankLocal orders the usable candidates that score above bar (the
// incumbent's own corrected score: a step must be predicted, optimism
// included, to improve on it, else the turn stays the sampler's) best
// first (ties keep their order, so the result is deterministic).
func rankLocal(cs []localCand, bar float64) []int {
	var idx []int
	for i, c := range cs {
		if c.ok && c.score > bar {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return cs[idx[a]].score > cs[idx[b]].score })
	return idx
}
