package prior

import (
	"context"

	"github.com/servetune/servetune/space"
)

// Local search's engine probe (issue 21, seventh pass fam7, refined in
// the eighth, fam8). Local search steps from the incumbent, and the
// residual corrects another engine's predictions by the incumbent
// engine's miss: while every completed trial ran one engine, the ranking
// between engines is the cards' alone. On the widened family's seed 57
// the cards put SGLang at 0.22–0.44 of its prediction and vLLM at 0.54;
// no vLLM trial completed in 40, and the optimum (vLLM) was never
// measured (docs/benchmarks.md, "Issue 21, seventh pass").
//
// So with one objective to maximize, when local search has the turn and
// is due (the prior caught wrong beyond the noise), and the residual's mean log miss
// on the first objective over at least localProbeAfter completed trials
// is below -errTolerance (the cards too optimistic as a whole), the turn
// goes first to an engine no completed trial ran that the prior's
// proposals have tried fewer than engineProbeTries times (unprobed): its
// engineProbeRefine candidates that screen best inside the learned
// memory plan are fully predicted, and the open one with the best
// corrected prediction is proposed.
//
// Only a negative mean probes: fam7 probed on either sign, and on
// h200-is-b200 (the cards too cautious, residual mean positive) it spent
// local turns on vLLM away from the SGLang memory steps that pay there
// (medians @20 1.6 → 3.1%, @30 0.0 → 3.1%). Where the cards are
// optimistic, the engine measured may be the one they overrate most.
//
// Only a throughput (an objective to maximize) probes. fam8 read the
// log miss's sign as for throughput on every objective, so on a latency
// it probed where the cards were too cautious; that cost Qwen3-8B seed
// 26 (2.6 → 7.3% from trial 20). Read by the latency's direction, the
// probe moved six of 80 Qwen3 seeds and cost seed 55 0.0 → 14.4% from
// trial 20 (docs/benchmarks.md, "Issue 21, ninth pass"). Neither
// orientation paid on the one latency landscape, so none probes.
const localProbeAfter = 3

// cardsOffBy reports whether the residual's first-objective log misses
// (sum over n completed trials) say the cards are too optimistic as a
// whole: at least localProbeAfter trials, mean below -errTolerance.
func cardsOffBy(sum float64, n int) bool {
	return n >= localProbeAfter && sum < -errTolerance*float64(n)
}

// engines are the engines local search should probe now: none
// unless the study has one objective, a throughput, and the cards are
// off (cardsOffBy), or without an engine knob.
func (ls *localSearch) engines() []string {
	st := ls.st
	if len(st.sp.Objectives) != 1 || st.sp.Objectives[0].Direction == space.Minimize {
		return nil
	}
	if o := st.tab.resid.obj[0]; !cardsOffBy(o.sum, o.n) {
		return nil
	}
	return st.unprobedEngines()
}

// probe is local search's probe of an engine no completed trial
// ran (engines), false when there is none or no candidate is open.
func (ls *localSearch) probe(ctx context.Context, taken map[string]bool) (space.Config, bool) {
	st, tab := ls.st, ls.st.tab
	for _, v := range ls.engines() {
		top := tab.topScreenedWhere(0, func(cd *candidate) bool { return inRegion(cd, v) && st.memoryOpen(cd) })
		top = top[:min(engineProbeRefine, len(top))]
		var todo []*candidate
		for _, cd := range top {
			if !cd.refined {
				todo = append(todo, cd)
			}
		}
		tab.refineAll(ctx, todo)
		if ctx.Err() != nil {
			return nil, false
		}
		in := func(k string, cd *candidate) bool { return inRegion(cd, v) && st.openAnywhere(k, taken) }
		if c, ok := st.bestWhere(0, in); ok {
			return c, true
		}
	}
	return nil, false
}
