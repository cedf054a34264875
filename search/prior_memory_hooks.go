package search

import (
	"context"

	"github.com/servetune/servetune/space"
)

// The priorSampler's hooks into the learned memory plan (prior_memory.go).

// tellMemory teaches the learned memory plan a trial that started
// (completed or pruned) or ran out of memory; other trials say nothing
// about memory.
func (ps *priorSampler) tellMemory(o Observation, c space.Config) {
	started := o.State == Complete || o.State == Pruned
	if ps.memory == nil || !(started || o.Class == ClassOOM) {
		return
	}
	ps.memory.tell(ConfigKey(ps.sp, c), c, started)
}

// memoryBusy is busy plus the fully predicted candidates the learned
// memory plan says run out of memory, once a trial has contradicted the
// card's plan (until then it decides as the card does): the prior does
// not pick them.
func (ps *priorSampler) memoryBusy(busy map[string]bool) map[string]bool {
	if ps.memory == nil || !ps.memory.contradicted {
		return busy
	}
	out := make(map[string]bool, len(busy))
	for k := range busy {
		out[k] = true
	}
	for _, k := range ps.order {
		cd := ps.cands[k]
		if !cd.refined || out[k] {
			continue
		}
		if fits, decided := ps.memory.fits(k, cd.cfg, cd.feasible); decided && !fits {
			out[k] = true
		}
	}
	return out
}

// innerVerdict says whether the inner sampler's proposal c may run, and
// if not whether it may run anyway as exploration. Once the card's memory
// plan is contradicted, the learned plan decides for configs whose fate
// is a matter of memory, and a config it gives less than exploreFloor
// of a chance is not explored: the evidence has ruled it out. Otherwise
// c runs when the prior predicts it feasible, or its feasibility
// predictions have been caught wrong (overall or in c's memory regions).
func (ps *priorSampler) innerVerdict(ctx context.Context, c space.Config) (run, explore bool) {
	// The full prediction, not screening: some configs run out of
	// memory only under the full benchmark's load.
	cd := ps.predict(ctx, c)
	if ps.memory != nil && ps.memory.contradicted {
		if p, decided := ps.memory.chance(ConfigKey(ps.sp, c), c, cd.feasible); decided {
			return p > 0.5, p >= exploreFloor
		}
	}
	return cd.feasible || !ps.trust.feasibility() || ps.regions.memoryWrong(c), true
}

// memoryFallbackDraws bounds memoryFallback's random draws.
const memoryFallbackDraws = 64

// memoryFallback is the config to run when the inner sampler proposed
// only configs ruled out: once the card's memory plan is contradicted,
// a random config of the space neither told nor busy that the learned
// plan expects to start (a model sampler that learnt little but the
// region of the best trials keeps proposing it), else last.
func (ps *priorSampler) memoryFallback(busy map[string]bool, last space.Config) space.Config {
	if ps.memory == nil || !ps.memory.contradicted {
		return last
	}
	for range memoryFallbackDraws {
		c := ps.sp.WithTargetEngine(ps.sp.Sample(ps.rng))
		k := ConfigKey(ps.sp, c)
		if ps.told[k] || busy[k] || ps.sp.Check(c) != nil {
			continue
		}
		if p, decided := ps.memory.chance(k, c, true); decided && p > 0.5 {
			return c
		}
	}
	return last
}

// memoryOpen reports whether screened candidate cd may be refined: not
// once the learned memory plan, after a trial contradicted the card's,
// expects it to run out of memory (the best screened configs sit at the
// edge of memory, and the prior would refine only configs it cannot
// propose).
func (ps *priorSampler) memoryOpen(cd *candidate) bool {
	if ps.memory == nil || !ps.memory.contradicted {
		return true
	}
	fits, decided := ps.memory.fits(ConfigKey(ps.sp, cd.cfg), cd.cfg, cd.fastOK)
	return fits || !decided
}

// MemoryLearner is a Sampler whose prior learns the machine's memory from
// the study's trials: what a report or log can say about why the prior's
// out-of-memory predictions moved.
type MemoryLearner interface {
	// LearntMemory is the learned scales of the card's usable memory and
	// of its overheads besides weights and KV cache (posterior geometric
	// means); contradicted is false while every trial agreed with the
	// card's plan (the scales are then the prior's, not evidence).
	LearntMemory() (mem, overhead float64, contradicted bool)
}

// LearntMemory reports the learned memory plan; (1, 1, false) when the
// prior cannot be asked about other machines.
func (ps *priorSampler) LearntMemory() (mem, overhead float64, contradicted bool) {
	if ps.memory == nil {
		return 1, 1, false
	}
	mem, overhead = ps.memory.scales()
	return mem, overhead, ps.memory.contradicted
}
