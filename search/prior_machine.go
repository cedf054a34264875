package search

import (
	"context"
	"math"

	"github.com/servetune/servetune/space"
)

// Which machine the prior predicts on. The prior simulates its card; a
// machine with more memory than the card (a B200 taken for an H200)
// makes every lower `mem_fraction` cost less than the card says, so the
// card ranks a whole band of configs wrong relative to each other, and
// the residual, additive over knob values, learns that trend only one
// measured value at a time. The learned memory plan (prior_memory.go)
// knows the machine is not the card once a trial contradicts the card's
// plan (the evidence it already acts on). From then on the prior predicts
// every config on the plan's likeliest machine — the posterior mean of
// its memory and overhead scales, on the plan's own ladder — and the
// residual is relearnt against those predictions: the ranking's
// memory trend follows from physics instead of from trials. Until then,
// and whenever the plan's machine rounds to the card, the prior predicts
// on the card, exactly as before.
//
// One owner: followMachine decides the machine at each proposal and
// re-predicts the candidates when it moves; the rankers (screening,
// refine, picks, local search, the front) keep reading the candidates'
// predictions.

// MachineScreener is a MachinePredictor that also screens on another
// machine (Screener's cheaper prediction, on the scaled cards).
type MachineScreener interface {
	ScreenOn(ctx context.Context, c space.Config, mem, overhead float64) (values []float64, feasible bool)
}

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

// machineOf is the machine the study's prior predicts on now; the card
// when it cannot predict on another.
func (ps *priorSampler) machineOf() [2]float64 {
	if ps.memory == nil {
		return cardMachine()
	}
	if _, ok := unwrapPrior(ps.prior).(MachinePredictor); !ok {
		return cardMachine()
	}
	mem, over := ps.memory.scales()
	return rankMachine(ps.memory.contradicted, mem, over)
}

// onCard reports whether the prior predicts on its card.
func (ps *priorSampler) onCard() bool {
	return ps.machine == [2]float64{} || ps.machine == cardMachine()
}

// predictFull is c's full prediction on the machine the prior predicts on.
func (ps *priorSampler) predictFull(ctx context.Context, c space.Config) ([]float64, bool) {
	if ps.onCard() {
		return ps.prior.Predict(ctx, c)
	}
	return unwrapPrior(ps.prior).(MachinePredictor).PredictOn(ctx, c, ps.machine[0], ps.machine[1])
}

// screens reports whether the prior screens (a cheaper prediction than
// its full one) on the machine it predicts on.
func (ps *priorSampler) screens() bool {
	if ps.onCard() {
		_, ok := ps.prior.(Screener)
		return ok
	}
	_, ok := unwrapPrior(ps.prior).(MachineScreener)
	return ok
}

// predictFast is c's screening prediction on the machine the prior
// predicts on (the full one when it does not screen).
func (ps *priorSampler) predictFast(ctx context.Context, c space.Config) ([]float64, bool) {
	switch {
	case !ps.screens():
		return ps.predictFull(ctx, c)
	case ps.onCard():
		return ps.prior.(Screener).Screen(ctx, c)
	}
	return unwrapPrior(ps.prior).(MachineScreener).ScreenOn(ctx, c, ps.machine[0], ps.machine[1])
}

// followMachine moves the prior to the machine machineOf names, if it
// moved: every candidate is screened again (and fully predicted again
// where it was), the told configs' twins are recomputed, and the
// residual is relearnt from the completed trials against the new
// predictions.
func (ps *priorSampler) followMachine(ctx context.Context) {
	m := ps.machineOf()
	if m == ps.machine || (ps.onCard() && m == cardMachine()) {
		return
	}
	ps.machine = m
	var all, full []*candidate
	for _, k := range ps.order {
		cd := ps.cands[k]
		all = append(all, cd)
		if cd.refined {
			full = append(full, cd)
		}
		cd.fast, cd.fastOK, cd.refined = nil, false, false
	}
	ps.rescreen(ctx, all)
	if ps.screens() { // else screening was the full prediction
		budget := ps.budget
		ps.budget = -1
		ps.refineAll(ctx, full)
		ps.budget = budget
	}
	if ctx.Err() != nil {
		return
	}
	ps.relearn(ctx)
}

// rescreen screens cds again on the current machine, on every core.
func (ps *priorSampler) rescreen(ctx context.Context, cds []*candidate) {
	cs := make([]space.Config, len(cds))
	for i, cd := range cds {
		cs[i] = cd.cfg
	}
	out := parallel(ctx, cs, func(c space.Config) prediction { return predictWith(ctx, ps.predictFast, c) })
	if ctx.Err() != nil {
		return
	}
	screens := ps.screens()
	for i, cd := range cds {
		cd.fast, cd.fastOK = out[i].values, out[i].feasible && len(out[i].values) == len(ps.sp.Objectives)
		if !screens {
			cd.values, cd.feasible, cd.refined = cd.fast, cd.fastOK, true
		}
	}
}

// relearn rebuilds what the prior learnt against its predictions — the
// residual over the completed trials and the pruned ones' projections,
// and the told configs' twins — on
// the current machine's predictions.
func (ps *priorSampler) relearn(ctx context.Context) {
	ps.resid = newResidual(len(ps.sp.Objectives))
	for _, mc := range ps.measuredCfgs {
		cd := ps.predict(ctx, mc.cfg)
		if !cd.feasible {
			continue
		}
		for i, v := range mc.values {
			if v > 0 && cd.values[i] > 0 {
				ps.resid.add(i, mc.cfg, math.Log(v/cd.values[i]))
			}
		}
	}
	for _, mc := range ps.prunedCfgs {
		ps.learnPruned(mc, ps.predict(ctx, mc.cfg))
	}
	ps.twins = map[string]bool{}
	for _, k := range ps.order {
		if cd := ps.cands[k]; ps.told[k] && cd.refined && cd.feasible {
			ps.twins[valuesKey(cd.values)] = true
		}
	}
}
