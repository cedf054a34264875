package studies

import (
	"math"

	"github.com/servetune/servetune/search"
)

// pruner returns the trial's checkpoint hook: it records every checkpoint
// in t.Intermediate and asks the prune rule against the incumbents' own
// checkpoints at the same profile and step.
func (l *loop) pruner(t *Trial) func(string, int, map[string]float64) bool {
	incumbents := l.incumbents()
	return func(profile string, step int, m map[string]float64) bool {
		cp := search.Checkpoint{Profile: profile, Step: step, Values: make([]float64, len(l.Space.Objectives))}
		for i, o := range l.Space.Objectives {
			cp.Values[i] = math.NaN()
			if l.Space.ObjectiveProfile(o.Profile) == profile {
				if v, ok := m[o.Metric]; ok {
					cp.Values[i] = v
				}
			}
		}
		for _, c := range l.Space.Constraints {
			if v, ok := m[c.Metric]; ok && l.Space.ObjectiveProfile(c.Profile) == profile {
				cp.Violation += c.Violation(v)
			}
		}
		t.Intermediate = append(t.Intermediate, cp)
		if l.Prune == nil {
			return false
		}
		var at []search.Checkpoint
		for _, inc := range incumbents {
			if c := atStep(inc, profile, step); c != nil {
				at = append(at, *c)
			}
		}
		prune, why := l.Prune.ShouldPrune(cp, at, l.Space.Objectives)
		if prune {
			t.Reason = why
			for i, inc := range incumbents {
				if c := atStep(inc, profile, step); c != nil {
					t.Intermediate[len(t.Intermediate)-1].Projected = search.Project(cp, *c, Values(l.Space, incumbents[i]))
					break
				}
			}
		}
		return prune
	}
}

// atStep is a trial's checkpoint at a profile and step, if it has one.
func atStep(t Trial, profile string, step int) *search.Checkpoint {
	for i := range t.Intermediate {
		if c := &t.Intermediate[i]; c.Profile == profile && c.Step == step {
			return c
		}
	}
	return nil
}

// incumbents are the trials a new trial must beat: the best one, or the
// Pareto front.
func (l *loop) incumbents() []Trial {
	pts, idx := points(l.Space, l.trials)
	var win []int
	if len(l.Space.Objectives) > 1 {
		win = search.Front(pts, l.Space.Objectives)
	} else if b := search.Best(pts, l.Space.Objectives); b >= 0 {
		win = []int{b}
	}
	out := make([]Trial, 0, len(win))
	for _, w := range win {
		out = append(out, l.trials[idx[w]])
	}
	return out
}
