package motpe

import "github.com/servetune/servetune/search"

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
	out := make([]search.Observation, 0, maxModelObs)
	for _, f := range m.front {
		if f < recent {
			out = append(out, m.obs[f])
		}
	}
	return append(out, m.obs[recent:]...)
}
