package search

import (
	"context"
	"math"
	"math/rand"

	"github.com/servetune/servetune/space"
)

// A memory probe: the learned memory plan (prior_memory.go) re-opens a
// region the card refuses only once a trial contradicts the card, and
// the prior never proposes a config its card runs out of memory, so a
// card too cautious about memory is never contradicted: the study never
// learns that the optimum just past the card's edge starts (the widened
// family's seed 4, overheads ×0.84 of the card's, loses 10% so).
//
// A probe spends one trial finding out. On a turn the inner sampler would
// take (so the prior's own picks keep their order), once the study has
// measured an incumbent and run probeAfter trials, the prior looks
// at the configs one knob from the incumbent and from its own best
// predicted configs that the card refuses on memory alone; for each it
// asks the learned plan the chance the config starts (the posterior's
// weight of the machines it starts on: the plan's uncertainty, narrowed
// by every trial that started or ran out of memory near that edge) and
// predicts it on the likeliest machine it starts on (MachinePredictor).
// The config with the largest chance × predicted gain over the incumbent
// runs, if its chance is at least probeChance and its gain at least
// probeGain; at most maxProbes per study, one-objective studies only,
// and none once a trial has contradicted the card's plan.
//
// An out-of-memory probe costs an engine start-up and teaches the learned
// plan (the machines it would have started on lose weight, so the next
// candidate's chance falls); one that starts contradicts the card, and
// the learned plan re-opens the region from then on. On a machine with
// less memory than the card the plan is contradicted early, out of
// memory, and no probe runs. Probes are recorded with origin "prior".

// MachinePredictor is a Prior that can predict a config on a machine
// unlike its card: mem times the card's usable memory, overhead times its
// overheads besides weights and KV cache (MemoryPlanner's scales).
type MachinePredictor interface {
	PredictOn(ctx context.Context, c space.Config, mem, overhead float64) (values []float64, feasible bool)
}

const (
	maxProbes    = 2
	probeAfter   = 10
	probeChance  = 0.1
	probeGain    = 0.03 // log ratio over the incumbent
	probeSources = 3
	probeSeed    = 0x70726f6265
)

// probeState is the probes a study ran, and the predictions made for
// candidates (config key and machine: the likeliest machine moves as the
// plan learns).
type probeState struct {
	done  int
	preds map[probeKey]prediction
	// rng fills the knobs a neighbour activates (repair): the prior's own
	// stream must not move when a probe only looks, or a study that never
	// probes would still propose differently.
	rng *rand.Rand
}

type probeKey struct {
	cfg     string
	machine [2]float64
}

// probeCand is a refused config a probe could run: chance is the learned
// plan's chance it starts, gain its corrected prediction's log gain over
// the incumbent on the first objective.
type probeCand struct {
	cfg          space.Config
	chance, gain float64
}

// probeSituation is what decides whether a probe may run at a proposal.
type probeSituation struct {
	done, asked, objectives int
	// incumbent: a trial completed (a probe must beat something);
	// contradicted: a trial contradicted the card's memory plan (the
	// learned plan decides from then on, and a probe has nothing left to
	// find out); priorTurn: the proposal is the prior's own pick.
	incumbent, contradicted, priorTurn bool
}

// probeDue reports whether a probe may run: on a turn the inner sampler
// would take (the prior's own picks keep their order), after probeAfter
// proposals and an incumbent, in a one-objective study, while the card's
// plan stands, and at most maxProbes times.
func probeDue(s probeSituation) bool {
	return !s.priorTurn && !s.contradicted && s.incumbent && s.objectives == 1 && s.asked > probeAfter && s.done < maxProbes
}

// bestProbe is the candidate worth probing: the largest chance × gain
// among those with chance ≥ probeChance and gain ≥ probeGain.
func bestProbe(cs []probeCand) (int, bool) {
	best, bestV := -1, 0.0
	for i, c := range cs {
		if c.chance < probeChance || c.gain < probeGain {
			continue
		}
		if v := c.chance * c.gain; best < 0 || v > bestV {
			best, bestV = i, v
		}
	}
	return best, best >= 0
}

// probe is the memory probe to run at this proposal (priorTurn: the
// prior's own pick's), if one is due and worth it.
func (ps *priorSampler) probe(ctx context.Context, busy map[string]bool, priorTurn bool) (space.Config, bool) {
	mp, ok := unwrapPrior(ps.prior).(MachinePredictor)
	if !ok || ps.memory == nil {
		return nil, false
	}
	due := probeDue(probeSituation{done: ps.probes.done, asked: ps.asked, objectives: len(ps.sp.Objectives),
		incumbent: ps.incumbent != nil, contradicted: ps.memory.contradicted, priorTurn: priorTurn})
	if !due {
		return nil, false
	}
	cs := ps.probeCands(ctx, mp, busy)
	i, ok := bestProbe(cs)
	if !ok {
		return nil, false
	}
	ps.probes.done++
	return cs[i].cfg, true
}

// probeCands are the refused neighbours of the probe's sources with a
// chance of at least probeChance, predicted on their likeliest machine.
func (ps *priorSampler) probeCands(ctx context.Context, mp MachinePredictor, busy map[string]bool) []probeCand {
	inc := math.Log(ps.incumbentVal)
	if ps.sp.Objectives[0].Direction == space.Minimize {
		inc = -inc
	}
	seen := map[string]bool{}
	var out []probeCand
	for _, src := range ps.probeSources() {
		for _, n := range ps.probeNeighbours(src) {
			k := ConfigKey(ps.sp, n)
			if seen[k] || ps.told[k] || busy[k] {
				continue
			}
			seen[k] = true
			p, refused := ps.memory.refusedChance(k, n)
			if !refused || p < probeChance {
				continue
			}
			pr := ps.probePredict(ctx, mp, k, n)
			if s, ok := ps.score(&candidate{cfg: n}, pr.values, pr.feasible, 0); ok {
				out = append(out, probeCand{cfg: n, chance: p, gain: s - inc})
			}
		}
	}
	return out
}

// probeNeighbours are c's neighbours, any knob they activate drawn from
// the probes' own stream.
func (ps *priorSampler) probeNeighbours(c space.Config) []space.Config {
	if ps.probes.rng == nil {
		ps.probes.rng = rand.New(rand.NewSource(probeSeed))
	}
	own := ps.rng
	ps.rng = ps.probes.rng
	defer func() { ps.rng = own }()
	return ps.neighbours(c)
}

// probeSources are the incumbent and the probeSources fully predicted
// feasible candidates the prior rates best.
func (ps *priorSampler) probeSources() []space.Config {
	best := ps.ranked(0, func(_ string, cd *candidate) ([]float64, bool) {
		return cd.values, cd.refined && cd.feasible
	})
	out := []space.Config{ps.incumbent}
	for _, cd := range best[:min(probeSources, len(best))] {
		out = append(out, cd.cfg)
	}
	return out
}

// probePredict is c's prediction on the likeliest machine it starts on,
// made once per machine.
func (ps *priorSampler) probePredict(ctx context.Context, mp MachinePredictor, k string, c space.Config) prediction {
	pk := probeKey{k, ps.memory.likeliestFit(k, c)}
	if pr, ok := ps.probes.preds[pk]; ok {
		return pr
	}
	v, ok := mp.PredictOn(ctx, c, pk.machine[0], pk.machine[1])
	pr := prediction{v, ok && len(v) == len(ps.sp.Objectives)}
	if ctx.Err() != nil {
		return prediction{}
	}
	if ps.probes.preds == nil {
		ps.probes.preds = map[probeKey]prediction{}
	}
	ps.probes.preds[pk] = pr
	return pr
}
