package motpe

import (
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A proposal of MOTPE ranks and fits kernels to every observation it is
// given, so its cost grows with the study (6 / 55 / 250 ms at 100 / 1,000
// / 3,000 trials, faster than linearly: the non-dominated sort is
// quadratic). Past maxModelObs observations it fits them to a window, as
// Optuna bounds its samplers' history: the Pareto archive of every
// feasible observation (kept as they are told, so no good point is ever
// forgotten) and the most recent observations, in the order they were
// told. Below the bound the model sees every observation, as before: the
// lab's 40–60-trial studies propose exactly what they did.

// maxModelObs is how many observations one proposal fits at most; far
// above any study the lab runs.
const maxModelObs = 1000

// archive keeps the Pareto front of the feasible complete observations
// told so far (positions in m.obs): an observation joins unless a member
// dominates it, and takes off the members it dominates.
func (m *MOSampler) archive(i int) {
	o := m.obs[i]
	vals := moValues(o, len(m.sp.Objectives))
	if o.State != search.Complete || vals == nil || o.Violation != 0 {
		return
	}
	p, objs := search.Point{Values: vals}, m.sp.Objectives
	keep := m.front[:0]
	for _, f := range m.front {
		q := search.Point{Values: moValues(m.obs[f], len(objs))}
		if search.Dominates(q, p, objs) {
			// Nothing was dropped yet: a member p dominates cannot sit
			// beside one that dominates p on the front.
			return
		}
		if !search.Dominates(p, q, objs) {
			keep = append(keep, f)
		}
	}
	m.front = append(keep, i)
}

// modelObs are the observations a proposal fits: all of them up to
// maxModelObs, else the archive and the most recent ones, in told order.
func (m *MOSampler) modelObs() []search.Observation {
	if len(m.obs) <= maxModelObs {
		return m.obs
	}
	recent := len(m.obs) - max(maxModelObs-len(m.front), maxModelObs/2)
	var older []int
	for _, f := range m.front {
		if f < recent {
			older = append(older, f)
		}
	}
	// On a continuous trade-off the archive grows with the study; past
	// half the window it is thinned along the front, so the window holds
	// at most maxModelObs observations whatever the front's size.
	if len(older) > maxModelObs/2 {
		pts := make([][]float64, len(older))
		for i, f := range older {
			pts[i] = moValues(m.obs[f], len(m.sp.Objectives))
		}
		kept := thinFront(pts, m.sp.Objectives, maxModelObs/2)
		for i, k := range kept {
			older[i] = older[k]
		}
		older = older[:len(kept)]
	}
	out := make([]search.Observation, 0, len(older)+len(m.obs)-recent)
	for _, f := range older {
		out = append(out, m.obs[f])
	}
	return append(out, m.obs[recent:]...)
}

// maxContribCandidates is how many members of the front that straddles
// the good set's cut selectByContribution chooses among at most: its
// greedy pass costs (good set) × (candidates) hypervolumes. Past it the
// front is thinned along its length first; the lab's studies (fronts of
// tens) never reach it.
const maxContribCandidates = 100

// thinCandidates thins a front of more than maxContribCandidates members
// (thinFront), moving the rest to others.
func thinCandidates(front, others []search.Observation, objs []space.Objective) (keep, rest []search.Observation) {
	if len(front) <= maxContribCandidates {
		return front, others
	}
	pts := make([][]float64, len(front))
	for i, o := range front {
		pts[i] = o.Values
	}
	kept := thinFront(pts, objs, maxContribCandidates)
	in := make([]bool, len(front))
	for _, k := range kept {
		in[k] = true
		keep = append(keep, front[k])
	}
	rest = others
	for i, o := range front {
		if !in[i] {
			rest = append(rest, o)
		}
	}
	return keep, rest
}
