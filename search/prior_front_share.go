package search

import "math"

// The prior's share of a multi-objective study's proposals, by what its
// picks add. With one objective the prior's share follows its prediction
// error (priorTrust.every). With several, what a user wants of a trial is
// that it extends the front, and the study measures exactly that: a
// proposal succeeds when its first measurement adds hypervolume to the
// front measured before it. On the lab's realities the prior's picks do
// so three to five times as often as the inner sampler's (whose
// proposals are pruned, out of memory or twins of measured configs for
// most of the budget), yet kept every other turn. The prior now takes
// turns in proportion to its success rate against the inner sampler's
// (each (successes+1)/(trials+2), so neither is judged on no evidence),
// between frontMinShare and frontMaxShare: a prior that stops extending
// the front gives turns back, and the inner sampler always keeps one in
// ten, so a wrong prior slows a study, never traps it.
const (
	frontMinShare = 1.0 / distrustEvery
	frontMaxShare = 0.9
)

// sourceRecord is how many trials a proposer's configs ran and how many
// of them added hypervolume.
type sourceRecord struct{ trials, wins int }

// frontShare is the prior's share of proposals given its record and the
// inner sampler's.
func frontShare(prior, inner sourceRecord) float64 {
	rp := float64(prior.wins+1) / float64(prior.trials+2)
	ri := float64(inner.wins+1) / float64(inner.trials+2)
	return math.Min(frontMaxShare, math.Max(frontMinShare, rp/(rp+ri)))
}

// shareTurn reports whether proposal asked (1-based) is the prior's at
// share s: the prior's turns are spread evenly, ⌊asked·s⌋ of the first
// asked (s = 1/2: every other one, as priorEvery).
func shareTurn(asked int, s float64) bool {
	return math.Floor(float64(asked)*s+1e-9) > math.Floor(float64(asked-1)*s+1e-9)
}

// frontTurn decides whether a multi-objective study's proposal is the
// prior's.
func (ps *priorSampler) frontTurn() bool {
	prior, inner := ps.frontRecords()
	return shareTurn(ps.asked, frontShare(prior, inner))
}

// frontRecords are the prior's and the inner sampler's records over the
// study's trials (configs proposed by neither, such as the baseline and
// confirmations of them, count for no one; a config counts once).
func (ps *priorSampler) frontRecords() (prior, inner sourceRecord) {
	wins := ps.frontWins()
	for k := range ps.told {
		p, ok := ps.proposed[k]
		if !ok {
			continue
		}
		r := &inner
		if p.Origin != "sampler" {
			r = &prior
		}
		r.trials++
		if wins[k] {
			r.wins++
		}
	}
	return prior, inner
}

// frontWins are the configs whose first measurement added hypervolume to
// the measurements before it (reference: that of every measurement).
func (ps *priorSampler) frontWins() map[string]bool {
	ref := ps.frontRef(ps.measured)
	wins := map[string]bool{}
	if ref == nil {
		return wins
	}
	seen := map[string]bool{}
	var before [][]float64
	for _, m := range ps.measuredCfgs {
		k := configKey(ps.sp, m.cfg)
		if !seen[k] {
			seen[k] = true
			wins[k] = hvGain(before, m.values, ps.sp.Objectives, ref) > 0
		}
		before = append(before, m.values)
	}
	return wins
}
