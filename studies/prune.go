package studies

import (
	"math"
	"slices"
	"sync"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// judge returns the trial's pruning judge: it compares the trial's
// checkpoints so far with the incumbents' own up to the same profile and
// step (search.PruneRule.ShouldPruneSeries: each series through its upper
// envelope, the margin widened to the pair's wave mismatch, because a
// batch's waves put one trial in a trough where another crests). The
// incumbents and the rule's margin are fixed when the trial starts. A
// repeat, noise repeat or confirmation is never pruned: it exists to
// measure the noise, and would otherwise be stopped by its own first
// measurement.
func (l *loop) judge(origin string) objective.Judge {
	sp, rule, incumbents := l.Space, l.noiseAware(), l.incumbents()
	if rule == nil || isRemeasure(origin) {
		return func(objective.Checkpoint) objective.Verdict { return objective.Verdict{} }
	}
	series := make([][]search.Checkpoint, len(incumbents))
	for i, inc := range incumbents {
		series[i] = inc.Intermediate
	}
	var mu sync.Mutex
	var seen []search.Checkpoint // the trial's own checkpoints so far
	return func(c objective.Checkpoint) objective.Verdict {
		mu.Lock()
		seen = append(seen, toCheckpoint(sp, c))
		own := slices.Clone(seen)
		mu.Unlock()
		prune, why := rule.ShouldPruneSeries(own, series, sp.Objectives)
		if !prune {
			return objective.Verdict{}
		}
		v := objective.Verdict{Stop: true, Why: why}
		cp, _ := search.Envelope(own, c.Profile, c.Step, sp.Objectives)
		for i, inc := range incumbents {
			if at, ok := search.Envelope(inc.Intermediate, c.Profile, c.Step, sp.Objectives); ok {
				v.Projected = search.Project(cp, at, Values(sp, incumbents[i]))
				break
			}
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
	if cv, df := noiseCV(sp, trials); df > 0 {
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

// incumbents are the trials a new trial must beat: the best one, or the
// Pareto front.
func (l *loop) incumbents() []store.Trial {
	var out []store.Trial
	for _, i := range l.index().incumbents(l.trials) {
		out = append(out, l.trials[i])
	}
	return out
}

// noiseAware is the loop's prune rule at the noise its trials measured
// (noiseAware).
func (l *loop) noiseAware() *search.PruneRule {
	if l.Prune == nil {
		return nil
	}
	r := *l.Prune
	if cv, df := l.index().noiseCV(); df > 0 {
		r.Margin = math.Max(r.Margin, noiseMargins*cv)
	}
	return &r
}

// incumbentsOf are the incumbents among trials (search.Best's point, or
// search.Front's, found one trial at a time: O(n) times the front's size,
// not O(n²)).
func incumbentsOf(sp *space.Space, trials []store.Trial) []store.Trial {
	var out []store.Trial
	for _, i := range rankingOf(sp, trials).incumbents(sp) {
		out = append(out, trials[i])
	}
	return out
}
