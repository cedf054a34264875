package simprior

import (
	"context"
	"crypto/sha256"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
)

// Twins: many configs of a space simulate alike — a knob the engine
// ignores in that config (deepep_mode without DeepEP), a default spelled
// out, a value the engine clamps. The simulator's Fingerprint names what
// a config resolves to, every value Evaluate reads, so two configs with
// equal fingerprints have equal records on the same target, profiles and
// seed (the lab's oracle shares its outcomes so). A prediction reads only
// the records' metrics — not the GPUs or start-up, which follow the
// config — so the prior simulates each fingerprint once per machine and
// benchmark set, and its twins get the same numbers without a
// simulation.

// simulateTwin is simulateWith on sm through r, remembered by c's
// fingerprint on sm's cards; k says which machine (zero scales: the
// unscaled cards) and which benchmarks. A config without a fingerprint
// (disaggregated, refused) is simulated each time: refusals cost nothing
// and a disaggregated config has no such summary.
func (p *simPrior) simulateTwin(ctx context.Context, sm *sim.Simulator, r *objective.SimRunner, c space.Config, k memoKey) ([]float64, bool) {
	fp, ok := sm.Fingerprint(c, p.target)
	if !ok {
		return p.simulateWith(ctx, r, c, p.profiles(k.screen))
	}
	sum := sha256.Sum256([]byte(fp)) // a fingerprint is ~1.6 KB of text
	k.config = string(sum[:])
	if v, ok, hit := p.twins.get(k); hit {
		return v, ok
	}
	v, feasible := p.simulateWith(ctx, r, c, p.profiles(k.screen))
	if ctx.Err() == nil { // a simulation cut short predicts nothing
		p.twins.put(k, v, feasible)
	}
	return v, feasible
}

// simRunner is the prior's runner on cards: it simulates and summarises
// only what the objectives can read. Unless an objective is an ITL or
// peak metric, the records carry no inter-token gaps and the summary
// walks none (the gaps are most of a summary's cost and of a
// simulation's memory); every other metric is the same number.
func simRunner(cards *sim.Cards, objs []space.Objective) *objective.SimRunner {
	gaps := false
	for _, o := range objs {
		if strings.Contains(o.Metric, "itl") || strings.Contains(o.Metric, "peak") {
			gaps = true
		}
	}
	sm := &sim.Simulator{Cards: cards, NoGaps: !gaps}
	return objective.NewSimRunner(objective.WithSimulator(sm), objective.WithSummary(bench.SummaryOptions{NoITL: !gaps, NoPeaks: !gaps}))
}
