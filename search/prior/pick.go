package prior

import (
	"context"

	"github.com/servetune/servetune/space"
)

// picker is the prior's own pick, the first stage of the pipeline: on
// the prior's turn it prepares (the front's neighbours, the engines to
// probe, the best screened, a climb) and picks.
type picker struct {
	st      *state
	front   front
	engines engineProbe
}

// proposal is the prior's pick on its turn; nothing on the inner
// sampler's, or when every candidate is closed.
func (p *picker) proposal(ctx context.Context, t proposalTurn) (space.Config, string, error) {
	if !t.prior {
		return nil, "", nil
	}
	st := p.st
	p.prepare(ctx)
	st.tab.budget = refinePerAsk
	st.tab.refine(ctx, refinePerAsk, st.memoryOpen)
	st.climbFull(ctx)
	st.tab.budget = -1
	if c, ok := p.pick(t.keys); ok {
		return c, st.originOf(c), nil
	}
	return nil, "", nil
}

// prepare screens and fully predicts what the front's and the engine
// probe's picks need (nothing with one objective).
func (p *picker) prepare(ctx context.Context) {
	p.front.prepare(ctx)
	p.engines.prepare(ctx)
}

// pick is the prior's proposal (busy: the configs running or asked in
// this batch): with one objective the unmeasured, non-busy (nor ruled out
// by the learned memory plan), fully predicted feasible candidate with the best corrected
// prediction; with several the one whose corrected prediction adds the
// most hypervolume to the measured front.
// The first picks of a multi-objective study are the best of each
// objective in turn: the front's ends are where the hypervolume is, and
// a study's first question is usually the best of the first objective.
func (p *picker) pick(busy map[string]bool) (space.Config, bool) {
	st := p.st
	d := len(st.sp.Objectives)
	st.picks++
	mem := st.memoryBusy(busy)
	if d > 1 && st.picks > d {
		if c, ok := p.engines.pick(mem); ok { // front_probe.go
			return c, true
		}
		if c, ok := p.front.pickHV(busy); ok { // front_pick.go: weighs memory itself
			return c, true
		}
	}
	return st.pickBest(mem, (st.picks-1)%d)
}
