package prior

import (
	"context"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// innerProposer is the pipeline's last stage: the inner sampler, whose
// proposals the prior keeps off configs it predicts to fail. It counts
// the proposals it skipped, so that one in exploreEvery runs anyway.
type innerProposer struct {
	st       *state
	inner    search.Sampler
	filtered int // inner proposals skipped as predicted infeasible
}

// proposal asks the inner sampler, skipping proposals the prior predicts
// infeasible while its memory plan has not been caught wrong.
func (ip *innerProposer) proposal(ctx context.Context, t proposalTurn) (space.Config, string, error) {
	var last []space.Config
	for range 8 {
		cs, err := ip.inner.Ask(ctx, 1, t.busy)
		if err != nil {
			return nil, "", err
		}
		last = cs
		run, explore := ip.verdict(ctx, ip.st.sp.WithTargetEngine(cs[0]))
		if run {
			return cs[0], "sampler", nil
		}
		ip.filtered++
		if explore && ip.filtered%exploreEvery == 0 {
			return cs[0], "sampler", nil
		}
	}
	return ip.fallback(t.keys, last[0]), "sampler", nil
}

// verdict says whether the inner sampler's proposal c may run, and
// if not whether it may run anyway as exploration. Once the card's memory
// plan is contradicted, the learned plan decides for configs whose fate
// is a matter of memory, and a config it gives less than exploreFloor
// of a chance is not explored: the evidence has ruled it out. Otherwise
// c runs when the prior predicts it feasible, or its feasibility
// predictions have been caught wrong (overall or in c's memory regions).
func (ip *innerProposer) verdict(ctx context.Context, c space.Config) (run, explore bool) {
	st := ip.st
	// The full prediction, not screening: some configs run out of
	// memory only under the full benchmark's load.
	cd := st.tab.predict(ctx, c)
	if st.contradicted() {
		if p, decided := st.memory.chance(search.ConfigKey(st.sp, c), c, cd.feasible); decided {
			return p > 0.5, p >= exploreFloor
		}
	}
	return cd.feasible || st.failureDoubted(c), true
}

// memoryFallbackDraws bounds fallback's random draws.
const memoryFallbackDraws = 64

// fallback is the config to run when the inner sampler proposed
// only configs ruled out: once the card's memory plan is contradicted,
// a random config of the space neither told nor busy that the learned
// plan expects to start (a model sampler that learnt little but the
// region of the best trials keeps proposing it), else last.
func (ip *innerProposer) fallback(busy map[string]bool, last space.Config) space.Config {
	st := ip.st
	if !st.contradicted() {
		return last
	}
	for range memoryFallbackDraws {
		c := st.sp.WithTargetEngine(st.sp.Sample(st.tab.rng))
		k := search.ConfigKey(st.sp, c)
		if st.tab.told[k] || busy[k] || st.sp.Check(c) != nil {
			continue
		}
		if p, decided := st.memory.chance(k, c, true); decided && p > 0.5 {
			return c
		}
	}
	return last
}
