package studies

import (
	"math"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// judge returns the trial's pruning judge: a pure function of a
// checkpoint that compares it with the incumbents' own checkpoints at the
// same profile and step. The incumbents and the rule's margin are fixed
// when the trial starts. A repeat, noise repeat or confirmation is never
// pruned: it exists to measure the noise, and would otherwise be stopped
// by its own first measurement.
func (l *loop) judge(origin string) objective.Judge {
	sp, rule, incumbents := l.Space, noiseAware(l.Prune, l.Space, l.trials), l.incumbents()
	if isRemeasure(origin) {
		rule = nil
	}
	return func(c objective.Checkpoint) objective.Verdict {
		if rule == nil {
			return objective.Verdict{}
		}
		cp := toCheckpoint(sp, c)
		var at []search.Checkpoint
		var first *store.Trial
		for i, inc := range incumbents {
			if a := atStep(inc, c.Profile, c.Step); a != nil {
				at = append(at, *a)
				if first == nil {
					first = &incumbents[i]
				}
			}
		}
		prune, why := rule.ShouldPrune(cp, at, sp.Objectives)
		if !prune {
			return objective.Verdict{}
		}
		v := objective.Verdict{Stop: true, Why: why}
		if first != nil {
			v.Projected = search.Project(cp, at[0], Values(sp, *first))
		}
		return v
	}
}

// noiseMargins is how many measured noise CVs the prune margin spans at
// half the requests: two measurements of one config differ by √2·CV at
// one sigma, so 3·CV is about two sigmas of their difference.
const noiseMargins = 3

// noiseAware widens the rule's margin to the noise the study has measured
// by repeating configs (--repeat), so a machine whose load drifts (a
// shared CPU) does not prune trials on its own noise; with no repeats
// yet, the rule stands as given.
func noiseAware(rule *search.PruneRule, sp *space.Space, trials []store.Trial) *search.PruneRule {
	if rule == nil {
		return nil
	}
	r := *rule
	if cv, measured := noiseCV(sp, trials); measured {
		r.Margin = math.Max(r.Margin, noiseMargins*cv)
	}
	return &r
}

// toCheckpoint is a benchmark checkpoint seen through the study's
// objectives and SLOs: NaN for an objective not measured there.
func toCheckpoint(sp *space.Space, c objective.Checkpoint) search.Checkpoint {
	cp := search.Checkpoint{Profile: c.Profile, Step: c.Step, Values: make([]float64, len(sp.Objectives))}
	for i, o := range sp.Objectives {
		cp.Values[i] = math.NaN()
		if v, ok := c.Metrics[o.Metric]; ok && sp.ObjectiveProfile(o.Profile) == c.Profile {
			cp.Values[i] = v
		}
	}
	for _, k := range sp.Constraints {
		// A guard is judged against the baseline's final value, which a
		// partial benchmark cannot be compared with.
		if v, ok := c.Metrics[k.Metric]; ok && !k.Relative && sp.ObjectiveProfile(k.Profile) == c.Profile {
			cp.Violation += k.Violation(v)
		}
	}
	return cp
}

// recordCheckpoints keeps a trial's checkpoints, so later trials can be
// pruned against it, and the verdict that stopped it.
func recordCheckpoints(sp *space.Space, t *store.Trial, res objective.Result) {
	t.Intermediate = nil
	for _, c := range res.Checkpoints {
		t.Intermediate = append(t.Intermediate, toCheckpoint(sp, c))
	}
	if v := res.Pruned; v != nil && len(t.Intermediate) > 0 {
		t.Intermediate[len(t.Intermediate)-1].Projected = v.Projected
		t.Reason = v.Why
	}
}

// atStep is a trial's checkpoint at a profile and step, if it has one.
func atStep(t store.Trial, profile string, step int) *search.Checkpoint {
	for i := range t.Intermediate {
		if c := &t.Intermediate[i]; c.Profile == profile && c.Step == step {
			return c
		}
	}
	return nil
}

// incumbents are the trials a new trial must beat: the best one, or the
// Pareto front.
func (l *loop) incumbents() []store.Trial {
	pts, idx := points(l.Space, l.trials)
	var win []int
	if len(l.Space.Objectives) > 1 {
		win = search.Front(pts, l.Space.Objectives)
	} else if b := search.Best(pts, l.Space.Objectives); b >= 0 {
		win = []int{b}
	}
	out := make([]store.Trial, 0, len(win))
	for _, w := range win {
		out = append(out, l.trials[idx[w]])
	}
	return out
}
