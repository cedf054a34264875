package search

import (
	"context"
	"math"
)

// The machine the measured values point to. The learned memory plan
// hears only whether a config started: on a machine with more memory
// than the card (a B200 taken for an H200) nearly every config the prior
// proposes starts, one odd out-of-memory trial can pull the plan the
// other way, and the plan's mean stays on the card (h200-is-b200 seeds 11
// and 35: ×1.01 to trial 40). Yet every completed trial says more: the
// card predicts a low `mem_fraction` config far below what it measures
// (its KV cache is short on the card, not on the machine) while it
// predicts the `mem_fraction` 0.85 configs about as wrong as each other
// (a seed's trials: log errors 1.48 at 0.7 against 0.64–0.66 at 0.85 on
// the card; 0.59 against 0.64–0.65 on ×1.22 memory). A machine whose
// predictions are wrong by the same factor everywhere (the compute and
// the engines' constant factors, which the residual takes) explains the
// measurements; one that is wrong by different factors for configs that
// differ in memory does not.
//
// fitMachine compares the plan's machine with the machines one or more
// steps of memory above it (the same step as the plan's, overheads
// unchanged): for each, the spread of the completed trials' log errors on
// the first objective around their mean (sse), over the trials every
// machine predicts feasible. It moves to the machine with the least
// spread when that is less than the current machine's by machineFitGain
// (a log likelihood ratio of fitEvidence at a noise of fitNoise), and
// stays otherwise: a move costs a screening of every candidate, and the
// measurements must carry the evidence, not one draw's luck. Only
// machines with more memory than the plan's are tried (predicting on a
// smaller machine than the card cost h200-extreme, plan6).

const (
	// fitNoise is the log-ratio noise of one measurement the fit assumes.
	fitNoise = 0.05
	// fitEvidence is the log likelihood ratio a machine must win by.
	fitEvidence = 2.0
	// fitMin is the fewest common trials the fit compares machines on.
	fitMin = 3
)

// machineFitGain is the least sse a move must save.
func machineFitGain() float64 {
	return 2 * fitNoise * fitNoise * fitEvidence
}

// fitChoice is the machine (index into sse) the fit moves to: the least
// spread, when it beats the current machine's (cur; -1 when the current
// machine is not among them, and then the first, the plan's) by gain;
// else the current one.
func fitChoice(sse []float64, cur int, gain float64) int {
	if cur < 0 || cur >= len(sse) {
		cur = 0
	}
	best := cur
	for i, s := range sse {
		if s < sse[best] {
			best = i
		}
	}
	if sse[cur]-sse[best] < gain {
		return cur
	}
	return best
}

// spread is the sum of squared deviations of errs from their mean.
func spread(errs []float64) float64 {
	mean := 0.0
	for _, e := range errs {
		mean += e
	}
	mean /= float64(len(errs))
	s := 0.0
	for _, e := range errs {
		s += (e - mean) * (e - mean)
	}
	return s
}

// fitMachines are the machines the fit compares: base and the machines
// one, two, … steps of memory above it, to the ladder's top.
func fitMachines(base [2]float64) [][2]float64 {
	out := [][2]float64{base}
	top := math.Exp(ladderHalf * memStep)
	for m := base[0] * math.Exp(machineRungs*memStep); m <= top*(1+1e-9); m *= math.Exp(machineRungs * memStep) {
		out = append(out, [2]float64{m, base[1]})
	}
	return out
}

// fitMachine is the machine the measured values point to, from base (the
// plan's): base when they do not single one out.
func (ps *priorSampler) fitMachine(ctx context.Context, mp MachinePredictor, base [2]float64) [2]float64 {
	ms := fitMachines(base)
	errs := make([][]float64, len(ms))
	for _, mc := range ps.measuredCfgs {
		y := mc.values[0]
		if !(y > 0) {
			continue
		}
		k := configKey(ps.sp, mc.cfg)
		row := make([]float64, len(ms))
		ok := true
		for i, m := range ms {
			pr := ps.predictOn(ctx, mp, k, mc.cfg, m)
			if ctx.Err() != nil {
				return base
			}
			if !pr.feasible || !(pr.values[0] > 0) {
				ok = false
				break
			}
			row[i] = math.Log(y / pr.values[0])
		}
		if ok {
			for i := range ms {
				errs[i] = append(errs[i], row[i])
			}
		}
	}
	if len(errs[0]) < fitMin {
		return base
	}
	sse := make([]float64, len(ms))
	cur := -1
	for i := range ms {
		sse[i] = spread(errs[i])
		if ms[i] == ps.machine {
			cur = i
		}
	}
	return ms[fitChoice(sse, cur, machineFitGain())]
}
