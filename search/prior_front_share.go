package search

import (
	"maps"
	"math"
	"slices"
)

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
//
// A win's size counts too (issue 21, fourth pass): on h200-extreme the
// inner sampler extends the front about as often as the prior, so the
// win rates kept the prior near one turn in two, yet its wins add more.
// While the prior's picks add at least as much hypervolume per trial as
// the inner sampler's (each shrunk towards the pooled rate by one trial),
// the prior takes frontMaxShare of the turns; once the inner sampler's
// add more, the win rates share them out as before. Measured: extreme
// HV@40 median 90.2% → 94.2%, no reality's median lower
// (docs/benchmarks.md, "issue 21, fourth pass", branch hv4).
const (
	frontMinShare = 1.0 / distrustEvery
	frontMaxShare = 0.9
)

// sourceRecord is how many trials a proposer's configs ran, how many of
// them added hypervolume, and how much they added (each first
// measurement's gain as a share of all the measurements' hypervolume).
type sourceRecord struct {
	trials, wins int
	gain         float64
}

// frontShare is the prior's share of proposals given its record and the
// inner sampler's: frontMaxShare while its picks add at least as much
// hypervolume per trial, else by the win rates.
func frontShare(prior, inner sourceRecord) float64 {
	if gp, gi := gainRates(prior, inner); gp >= gi*(1-1e-9) { // alike up to rounding: the prior's
		return frontMaxShare
	}
	rp := float64(prior.wins+1) / float64(prior.trials+2)
	ri := float64(inner.wins+1) / float64(inner.trials+2)
	return math.Min(frontMaxShare, math.Max(frontMinShare, rp/(rp+ri)))
}

// gainRates are the hypervolume each record's trials added per trial,
// each counted with one more trial at the pooled rate (so one lucky trial
// is not a rate); both 0 on no evidence.
func gainRates(prior, inner sourceRecord) (float64, float64) {
	n := prior.trials + inner.trials
	if n == 0 {
		return 0, 0
	}
	pooled := (prior.gain + inner.gain) / float64(n)
	return (prior.gain + pooled) / float64(prior.trials+1), (inner.gain + pooled) / float64(inner.trials+1)
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
	gains := ps.frontGains()
	for _, k := range slices.Sorted(maps.Keys(ps.told)) { // sums in one order: ties stay ties
		p, ok := ps.proposed[k]
		if !ok {
			continue
		}
		r := &inner
		if p.Origin != "sampler" {
			r = &prior
		}
		r.trials++
		if g := gains[k]; g > 0 {
			r.wins++
			r.gain += g
		}
	}
	return prior, inner
}

// frontGains are the hypervolume each config's first measurement added
// to the measurements before it, as a share of every measurement's
// (reference: that of every measurement); > 0 is a win.
func (ps *priorSampler) frontGains() map[string]float64 {
	ref := ps.frontRef(ps.measured)
	gains := map[string]float64{}
	if ref == nil {
		return gains
	}
	total := Hypervolume(ps.measured, ps.sp.Objectives, ref)
	if !(total > 0) {
		return gains
	}
	var before [][]float64
	for _, m := range ps.measuredCfgs {
		k := ConfigKey(ps.sp, m.cfg)
		if _, seen := gains[k]; !seen {
			gains[k] = hvGain(before, m.values, ps.sp.Objectives, ref) / total
		}
		before = append(before, m.values)
	}
	return gains
}
