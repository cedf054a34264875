package prior

import (
	"context"
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Which machine the prior predicts on. The prior simulates its card; a
// machine with more memory than the card (a B200 taken for an H200)
// makes every lower `mem_fraction` cost less than the card says, so the
// card ranks a whole band of configs wrong relative to each other, and
// the residual, additive over knob values, learns that trend only one
// measured value at a time. The learned memory plan (memory.go)
// knows the machine is not the card once a trial contradicts the card's
// plan (the evidence it already acts on). From then on the prior predicts
// every config on the plan's likeliest machine — the posterior mean of
// its memory and overhead scales, on the plan's own ladder — and the
// residual is relearnt against those predictions: the ranking's
// memory trend follows from physics instead of from trials. Until then,
// and whenever the plan's machine rounds to the card, the prior predicts
// on the card, exactly as before.
//
// One owner: machineFollower decides the machine at each proposal and
// re-predicts the candidates when it moves; the rankers (screening,
// refine, picks, local search, the front) keep reading the candidates'
// predictions.

// machineRungs is how many of the plan's rungs one step of the machine
// the prior predicts on spans (memory ×1.105, overheads ×1.22): each
// machine costs a screening of every candidate, so it moves only when
// the evidence moves it that far.
const machineRungs = 4

// cardMachine is the card's own scales (a function: no package state).
func cardMachine() [2]float64 { return [2]float64{1, 1} }

// rankMachine is the machine the prior predicts on: the card until the
// learned plan is contradicted; then the plan's mean scales rounded to
// steps of machineRungs rungs of its ladder (within it), so the machine
// moves only when the evidence moves it that far — if that machine has at
// least the card's room on both scales (memory ≥, overheads ≤ the
// card's). On a machine with less room the learned plan already keeps the
// prior off the configs that run out of memory, and ranking on the
// smaller machine was measured to cost h200-extreme (gap@30 worst seed
// 6.4% → 14.7%, docs/benchmarks.md, "Issue 21, sixth pass", branch `plan6`).
func rankMachine(contradicted bool, mem, overhead float64) [2]float64 {
	if !contradicted || !(mem > 0) || !(overhead > 0) {
		return cardMachine()
	}
	rung := func(x, step float64) float64 {
		i := math.Round(math.Log(x) / (machineRungs * step))
		return math.Exp(math.Max(-ladderHalf, math.Min(ladderHalf, i*machineRungs)) * step)
	}
	m := [2]float64{rung(mem, memStep), rung(overhead, overStep)}
	if m[0] < 1-1e-9 || m[1] > 1+1e-9 || (math.Abs(m[0]-1) < 1e-9 && math.Abs(m[1]-1) < 1e-9) {
		return cardMachine() // less room than the card on either scale, or the card
	}
	return m
}

// predictor is the prior on the machine it predicts on (zero: the
// card). machineFollower moves it; the table predicts through it.
type predictor struct {
	prior   search.Prior
	machine [2]float64
}

// onCard reports whether the prior predicts on its card.
func (p *predictor) onCard() bool {
	return p.machine == [2]float64{} || p.machine == cardMachine()
}

// full is c's full prediction on the machine the prior predicts on.
func (p *predictor) full(ctx context.Context, c space.Config) ([]float64, bool) {
	if p.onCard() {
		return p.prior.Predict(ctx, c)
	}
	return unwrapPrior(p.prior).(search.MachinePredictor).PredictOn(ctx, c, p.machine[0], p.machine[1])
}

// screens reports whether the prior screens (a cheaper prediction than
// its full one) on the machine it predicts on.
func (p *predictor) screens() bool {
	if p.onCard() {
		_, ok := p.prior.(search.Screener)
		return ok
	}
	_, ok := unwrapPrior(p.prior).(search.MachineScreener)
	return ok
}

// fast is c's screening prediction on the machine the prior predicts
// on (the full one when it does not screen).
func (p *predictor) fast(ctx context.Context, c space.Config) ([]float64, bool) {
	switch {
	case !p.screens():
		return p.full(ctx, c)
	case p.onCard():
		return p.prior.(search.Screener).Screen(ctx, c)
	}
	return unwrapPrior(p.prior).(search.MachineScreener).ScreenOn(ctx, c, p.machine[0], p.machine[1])
}

// machineFollower moves the prior to the machine the learned memory plan
// names. Its state is the predictor's machine.
type machineFollower struct{ st *state }

// machineOf is the machine the study's prior predicts on now; the card
// when it cannot predict on another.
func (mf machineFollower) machineOf() [2]float64 {
	st := mf.st
	if st.memory == nil {
		return cardMachine()
	}
	if _, ok := unwrapPrior(st.prior).(search.MachinePredictor); !ok {
		return cardMachine()
	}
	mem, over := st.memory.scales()
	return rankMachine(st.memory.contradicted, mem, over)
}

// follow moves the prior to the machine machineOf names, if it
// moved: every candidate is screened again (and fully predicted again
// where it was), the told configs' twins are recomputed, and the
// residual is relearnt from the completed trials against the new
// predictions.
func (mf machineFollower) follow(ctx context.Context) {
	tab, pred := mf.st.tab, mf.st.tab.pred
	m := mf.machineOf()
	if m == pred.machine || (pred.onCard() && m == cardMachine()) {
		return
	}
	pred.machine = m
	var all, full []*candidate
	for _, k := range tab.order {
		cd := tab.cands[k]
		all = append(all, cd)
		if cd.refined {
			full = append(full, cd)
		}
		cd.fast, cd.fastOK, cd.refined = nil, false, false
	}
	tab.screenCands(ctx, all)
	if pred.screens() { // else screening was the full prediction
		budget := tab.budget
		tab.budget = -1
		tab.refineAll(ctx, full)
		tab.budget = budget
	}
	if ctx.Err() != nil {
		return
	}
	tab.relearn(ctx, mf.st.hist.measuredCfgs, mf.st.hist.prunedCfgs)
}
