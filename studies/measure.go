package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/launch"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/studies/store"
)

// measure fills t's outcome: infeasible by rule, reused, or run. It returns
// an error only when the study cannot go on (the engine cannot be run on
// this machine at all); the trial is then recorded as interrupted.
func (l *loop) measure(ctx context.Context, t *store.Trial) error {
	defer func() { t.End = l.Now() }()
	if r := l.Space.Check(t.Config); r != nil {
		t.State, t.Reason = store.Infeasible, "breaks rule "+r.Expr.String()
		if r.Message != "" {
			t.Reason += ": " + r.Message
		}
		return nil
	}
	if t.ReusedFrom != 0 {
		prev := l.view.reused
		t.State, t.Metrics, t.Failure, t.Reason, t.LogPath = prev.State, prev.Metrics, prev.Failure, prev.Reason, prev.LogPath
		t.Ran, t.Fingerprint, t.Intervals = prev.Ran, prev.Fingerprint, prev.Intervals
		return nil
	}
	res, err := objective.Measure(ctx, l.Runner, l.objectiveTrial(t))
	t.Metrics, t.GPUSeconds, t.LogPath, t.Replies = store.DefinedMetrics(res.Metrics), res.GPUSeconds, res.LogPath, res.Replies
	t.Ran, t.Fingerprint = res.Ran, res.Fingerprint
	t.Intervals = storedMetricIntervals(res.Intervals)
	recordCheckpoints(l.Space, t, res)
	if errors.Is(err, launch.ErrProgram) {
		// Not the config's fault: it does not count toward n_trials and
		// is retried once the machine is fixed and the study resumed.
		t.State, t.Reason = store.Interrupted, err.Error()
		return err
	}
	l.outcome(ctx, t, err)
	return nil
}

func (l *loop) objectiveTrial(t *store.Trial) objective.Trial {
	return objective.Trial{
		Number:   t.Number,
		Config:   t.Config,
		Target:   l.Space.Target,
		Profiles: l.Space.Profiles,
		Dir:      l.Dir.Trial(t.Number),
		Seed:     l.Space.Study.Seed + int64(t.Number),
		OnPhase: func(p objective.Phase) {
			l.OnEvent(Event{Kind: TrialPhase, Trial: *t, Phase: p, Done: l.view.done, Total: l.Space.Study.NTrials, Best: l.view.best})
		},
		Judge:             l.reporting(t, l.view.judge),
		Timeout:           trialTimeout(l.Space.Target.TrialTimeout, l.Space.Profiles),
		MaxFailedFraction: l.Space.Target.MaxFailedFraction,
		BaselineReplies:   l.view.replies,
		IsBaseline:        t.Origin == "baseline",
		Devices:           t.Devices,
	}
}

// outcome decides a measured trial's state from the runner's error. It is
// the one place a trial's outcome is decided.
func (l *loop) outcome(ctx context.Context, t *store.Trial, err error) {
	f, isFailure := engines.AsFailure(err)
	switch {
	case err == nil:
		t.State = store.Complete
		if why := l.undefinedObjective(*t); why != "" {
			t.State, t.Reason = store.Failed, why
		}
	case errors.Is(err, objective.ErrPruned):
		t.State = store.Pruned
		if t.Reason == "" {
			t.Reason = "stopped early"
		}
	case ctx.Err() != nil:
		t.State, t.Reason = store.Interrupted, "servetune was interrupted during this trial"
	case isFailure && f.Class.Infeasible():
		t.State, t.Failure = store.Infeasible, f
	case isFailure:
		t.State, t.Failure = store.Failed, f
	default:
		t.State, t.Failure = store.Failed, &engines.Failure{Class: engines.Unknown, Message: err.Error()}
	}
}

// undefinedObjective says why a complete trial cannot be ranked: an
// objective's metric was not measured (e.g. TPOT when every request
// produced one token).
func (l *loop) undefinedObjective(t store.Trial) string {
	for i, v := range Values(l.Space, t) {
		if math.IsNaN(v) {
			o := l.Space.Objectives[i]
			return fmt.Sprintf("objective %s is undefined on profile %q (no request measured it)", o.Metric, l.Space.ObjectiveProfile(o.Profile))
		}
	}
	return ""
}

// trialTimeout is the time limit of one trial: the space's, or three
// times the profiles' expected benchmark duration with at least
// objective.DefaultTrialTimeout for launching the engine.
func trialTimeout(set time.Duration, profiles []bench.Profile) time.Duration {
	if set > 0 {
		return set
	}
	var expected time.Duration
	for _, p := range profiles {
		expected += expectedDuration(p)
	}
	return max(objective.DefaultTrialTimeout, 3*expected)
}

// expectedDuration is how long a profile's requests take to arrive: its
// rate search's bound, its max_duration when set, else num_prompts at the
// request rate. An
// unlimited rate's duration depends on the engine: 0, and the floor of
// trialTimeout bounds it.
func expectedDuration(p bench.Profile) time.Duration {
	if p.SearchRate != nil {
		return objective.RateSearchDuration(p)
	}
	if p.MaxDuration > 0 {
		return p.MaxDuration
	}
	if len(p.Stages) > 0 {
		return p.ArrivalSpan()
	}
	if p.DatasetName() == bench.DatasetTrace {
		return traceDuration(p)
	}
	if p.Unlimited() {
		return 0
	}
	return time.Duration(float64(p.NumPrompts+p.Warmup) / p.RequestRate * float64(time.Second))
}

// traceDuration is how long a trace profile's arrivals take: its window
// over its speedup, or, for a window running to the trace's end, its last
// planned arrival (one read of the trace file; 0 when it cannot be read,
// which the trial itself then reports).
func traceDuration(p bench.Profile) time.Duration {
	if d := p.ArrivalSpan(); d > 0 {
		return d
	}
	pl, err := p.Plan()
	if err != nil || len(pl.Requests) == 0 {
		return 0
	}
	return pl.Requests[len(pl.Requests)-1].Arrival
}

// storedMetricIntervals are a runner's stated intervals as the store
// keeps them (nil when none).
func storedMetricIntervals(ivs map[string]map[string]sim.Interval) map[string]map[string]store.Interval {
	var out map[string]map[string]store.Interval
	for profile, m := range ivs {
		for metric, iv := range m {
			if out == nil {
				out = map[string]map[string]store.Interval{}
			}
			if out[profile] == nil {
				out[profile] = map[string]store.Interval{}
			}
			out[profile][metric] = store.Interval(iv)
		}
	}
	return store.DefinedIntervals(out)
}
