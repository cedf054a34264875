package studies

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// EventKind names what happened in the study loop.
type EventKind string

const (
	TrialStarted  EventKind = "started"
	TrialPhase    EventKind = "phase"
	TrialFinished EventKind = "finished"
)

// Event is sent to RunOptions.OnEvent so the CLI can draw live lines or log.
type Event struct {
	Kind  EventKind
	Trial Trial
	Phase objective.Phase
	// Done counts finished trials (interrupted ones excluded) of Total.
	Done, Total int
	// Best is the best feasible trial so far on the first objective.
	Best *Trial
}

// RunOptions configures Run.
type RunOptions struct {
	Space  *space.Space
	Store  *Store
	Runner objective.Runner
	// Dir is the study directory; trial-N/ directories go under it.
	Dir string
	// Repeat measures each config this many times (default 1); more gives
	// noise estimates, at the cost of launches.
	Repeat  int
	Now     func() time.Time
	Log     zerolog.Logger
	OnEvent func(Event)
	// Prune stops trials that cannot win (nil: never prune).
	Prune *search.PruneRule
	// Budget stops the study once its trials have spent this much GPU
	// time, failures included (0: no budget).
	Budget time.Duration
	// Enqueue are configs to run first, after the baseline (warm start);
	// those already measured are skipped.
	Enqueue []space.Config
	// Search tunes the sampler.
	Search search.Options
}

// ErrBudget says the GPU-time budget ended the run before n_trials.
var ErrBudget = errors.New("GPU-time budget spent")

// ErrTimeout says the study's timeout ended the run before n_trials.
var ErrTimeout = errors.New("study timeout reached")

// Run resumes or starts the study and runs trials until n_trials of them
// have finished (trials interrupted by a crash do not count: they are
// recorded as failed/interrupted and their config is retried once), the
// study timeout passes, the space is exhausted, or ctx is cancelled.
func Run(ctx context.Context, o RunOptions) error {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Repeat < 1 {
		o.Repeat = 1
	}
	if o.OnEvent == nil {
		o.OnEvent = func(Event) {}
	}
	sp := o.Space
	interrupted, err := o.Store.RecoverInterrupted(ctx, o.Now())
	if err != nil {
		return err
	}
	for _, t := range interrupted {
		o.Log.Warn().Int("trial", t.Number).Msg("trial was interrupted by a previous run; it is recorded as failed and its config retried once")
	}
	trials, err := o.Store.Trials(ctx)
	if err != nil {
		return err
	}
	seed := sp.Study.Seed + int64(len(trials)) // a resumed run must not replay the same random draws
	sampler, err := search.NewSampler(sp.Study.Sampler, sp, seed, observations(sp, trials), o.Log, o.Search)
	if err != nil {
		return err
	}
	l := &loop{RunOptions: o, sampler: sampler, trials: trials, started: o.Now()}
	return l.run(ctx)
}

type loop struct {
	RunOptions
	sampler search.Sampler
	trials  []Trial
	started time.Time
}

// next is a config to run and why.
type next struct {
	cfg     space.Config
	origin  string
	retryOf int
}

// maxRuleStreak bounds consecutive rule-breaking proposals: a sampler that
// cannot find a valid config should stop the study, not spin.
const maxRuleStreak = 200

func (l *loop) run(ctx context.Context) error {
	streak := 0
	for {
		done := countDone(l.trials)
		if done >= l.Space.Study.NTrials {
			return nil
		}
		if t := l.Space.Study.Timeout; t > 0 && l.Now().Sub(l.started) >= t {
			return ErrTimeout
		}
		if l.Budget > 0 && gpuTime(l.trials) >= l.Budget {
			return ErrBudget
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := l.pick()
		if errors.Is(err, search.ErrExhausted) {
			l.Log.Info().Int("trials", done).Msg("every config of the space has been measured; stopping early")
			return nil
		}
		if err != nil {
			return err
		}
		if err := l.trial(ctx, n, done); err != nil {
			return err
		}
		if streak++; !brokeRule(l.trials[len(l.trials)-1]) {
			streak = 0
		}
		if streak >= maxRuleStreak {
			return fmt.Errorf("the sampler proposed %d configs in a row that break the space's rules; loosen the rules or narrow the domains", streak)
		}
	}
}

// pick chooses the next config: retries of interrupted trials (an
// interrupted baseline is retried as the baseline), the baseline, enqueued
// configs, repeats, then the sampler.
func (l *loop) pick() (next, error) {
	for _, t := range l.trials {
		if isInterrupted(t) && t.RetryOf == 0 && !l.has(func(u Trial) bool { return u.RetryOf == t.Number }) {
			origin := "retry"
			if t.Origin == "baseline" {
				origin = "baseline"
			}
			return next{cfg: t.Config, origin: origin, retryOf: t.Number}, nil
		}
	}
	if l.Space.Baseline != nil && !l.has(func(t Trial) bool { return t.Origin == "baseline" && t.State != Running && !isInterrupted(t) }) {
		return next{cfg: l.Space.WithTargetEngine(l.Space.Baseline), origin: "baseline"}, nil
	}
	for _, c := range l.Enqueue {
		c = l.Space.WithTargetEngine(c)
		if !l.has(func(t Trial) bool { return t.Config.Key() == c.Key() && !isInterrupted(t) }) {
			return next{cfg: c, origin: "enqueued"}, nil
		}
	}
	for _, t := range l.trials {
		if t.State == Complete && t.ReusedFrom == 0 && l.count(t.Config) < l.Repeat {
			return next{cfg: t.Config, origin: "repeat"}, nil
		}
	}
	cs, err := l.sampler.Ask(1, nil)
	if err != nil {
		return next{}, err
	}
	return next{cfg: l.Space.WithTargetEngine(cs[0]), origin: "sampler"}, nil
}

func (l *loop) has(f func(Trial) bool) bool {
	for _, t := range l.trials {
		if f(t) {
			return true
		}
	}
	return false
}

func (l *loop) trial(ctx context.Context, n next, done int) error {
	t := Trial{Config: n.cfg, Origin: n.origin, RetryOf: n.retryOf, Start: l.Now()}
	if prev := l.measured(n.cfg); prev != nil {
		t.Origin, t.ReusedFrom = "reused", prev.Number
	}
	if err := l.Store.Begin(ctx, &t); err != nil {
		return err
	}
	l.OnEvent(Event{Kind: TrialStarted, Trial: t, Done: done, Total: l.Space.Study.NTrials, Best: l.best()})
	fatal := l.measure(ctx, &t)
	// The outcome is stored even when ctx was cancelled mid-trial, so the
	// next run sees an interrupted trial instead of a RUNNING one.
	if err := l.Store.Finish(context.WithoutCancel(ctx), &t); err != nil {
		return err
	}
	l.trials = append(l.trials, t)
	if !isInterrupted(t) {
		if err := l.sampler.Tell(observation(l.Space, t)); err != nil {
			return err
		}
	}
	l.OnEvent(Event{Kind: TrialFinished, Trial: t, Done: countDone(l.trials), Total: l.Space.Study.NTrials, Best: l.best()})
	if fatal != nil {
		return fatal
	}
	return ctx.Err()
}

// measure fills t's outcome: infeasible by rule, reused, or run. It returns
// an error only when the study cannot go on (the engine cannot be run on
// this machine at all); the trial is then recorded as failed.
func (l *loop) measure(ctx context.Context, t *Trial) error {
	defer func() { t.End = l.Now() }()
	if r := l.Space.Check(t.Config); r != nil {
		msg := "breaks rule " + r.Expr.String()
		if r.Message != "" {
			msg += ": " + r.Message
		}
		t.State, t.Failure = Infeasible, &engines.Failure{Class: engines.Infeasible, Message: msg}
		return nil
	}
	if t.ReusedFrom != 0 {
		prev := l.byNumber(t.ReusedFrom)
		t.State, t.Metrics, t.Failure, t.LogPath = prev.State, prev.Metrics, prev.Failure, prev.LogPath
		return nil
	}
	dir := filepath.Join(l.Dir, fmt.Sprintf("trial-%d", t.Number))
	res, err := l.Runner.Run(ctx, objective.Trial{
		Number:   t.Number,
		Config:   t.Config,
		Target:   l.Space.Target,
		Profiles: l.Space.Profiles,
		Dir:      dir,
		Seed:     l.Space.Study.Seed + int64(t.Number),
		OnPhase: func(p objective.Phase) {
			l.OnEvent(Event{Kind: TrialPhase, Trial: *t, Phase: p, Done: countDone(l.trials), Total: l.Space.Study.NTrials, Best: l.best()})
		},
		Prune: l.pruner(t),
	})
	t.Metrics, t.GPUSeconds, t.LogPath = res.Metrics, res.GPUSeconds, res.LogPath
	switch f, isFailure := engines.AsFailure(err); {
	case err == nil:
		t.State = Complete
	case errors.Is(err, objective.ErrPruned):
		t.State = Pruned
		if t.Failure == nil {
			t.Failure = &engines.Failure{Class: engines.Pruned, Message: "stopped early"}
		}
	case ctx.Err() != nil:
		t.State, t.Failure = Failed, &engines.Failure{Class: engines.Interrupted, Message: "servetune was interrupted during this trial"}
	case isFailure && engines.InfeasibleClass(f.Class):
		t.State, t.Failure = Infeasible, f
	case isFailure:
		t.State, t.Failure = Failed, f
	default:
		t.State, t.Failure = Failed, &engines.Failure{Class: engines.Unknown, Message: err.Error()}
	}
	if errors.Is(err, engines.ErrProgram) {
		// Recorded as interrupted: it does not count toward n_trials and is
		// retried once the machine is fixed and the study resumed.
		t.Failure = &engines.Failure{Class: engines.Interrupted, Message: err.Error()}
		return err
	}
	return nil
}

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
			t.Failure = &engines.Failure{Class: engines.Pruned, Message: why}
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

func gpuTime(ts []Trial) time.Duration {
	s := 0.0
	for _, t := range ts {
		s += t.GPUSeconds
	}
	return time.Duration(s * float64(time.Second))
}

// count is how many times a config was measured (not reused).
func (l *loop) count(c space.Config) int {
	key, n := c.Key(), 0
	for _, t := range l.trials {
		if t.Config.Key() == key && t.ReusedFrom == 0 && (t.State == Complete || t.State == Infeasible) {
			n++
		}
	}
	return n
}

// measured returns a finished trial of the same config when the config
// has been measured Repeat times already.
func (l *loop) measured(c space.Config) *Trial {
	if l.count(c) < l.Repeat {
		return nil
	}
	key := c.Key()
	for i := range l.trials {
		t := &l.trials[i]
		if t.Config.Key() == key && t.ReusedFrom == 0 && (t.State == Complete || t.State == Infeasible) {
			return t
		}
	}
	return nil
}

func (l *loop) byNumber(n int) Trial {
	for _, t := range l.trials {
		if t.Number == n {
			return t
		}
	}
	return Trial{}
}

func (l *loop) best() *Trial {
	pts, idx := points(l.Space, l.trials)
	if b := search.Best(pts, l.Space.Objectives); b >= 0 {
		t := l.trials[idx[b]]
		return &t
	}
	return nil
}

func isInterrupted(t Trial) bool {
	return t.Failure != nil && t.Failure.Class == engines.Interrupted
}

// countDone counts the trials that count toward n_trials: everything that
// finished except interrupted trials (retried) and rule violations (never
// launched, so they cost nothing).
func countDone(ts []Trial) int {
	n := 0
	for _, t := range ts {
		if t.State != Running && !isInterrupted(t) && !brokeRule(t) {
			n++
		}
	}
	return n
}

func brokeRule(t Trial) bool {
	return t.Failure != nil && t.Failure.Class == engines.Infeasible
}

// Values returns a trial's objective values (NaN where missing).
func Values(sp *space.Space, t Trial) []float64 {
	out := make([]float64, len(sp.Objectives))
	for i, o := range sp.Objectives {
		out[i] = metric(t, sp.ObjectiveProfile(o.Profile), o.Metric)
	}
	return out
}

// Violation sums the trial's relative SLO violations (0 = all met).
func Violation(sp *space.Space, t Trial) float64 {
	v := 0.0
	for _, c := range sp.Constraints {
		x := metric(t, sp.ObjectiveProfile(c.Profile), c.Metric)
		if math.IsNaN(x) {
			v += 1
			continue
		}
		v += c.Violation(x)
	}
	return v
}

func metric(t Trial, profile, name string) float64 {
	if m, ok := t.Metrics[profile]; ok {
		if v, ok := m[name]; ok {
			return v
		}
	}
	return math.NaN()
}

// points returns the ranking view of the complete trials and their indices.
func points(sp *space.Space, ts []Trial) ([]search.Point, []int) {
	var pts []search.Point
	var idx []int
	for i, t := range ts {
		if t.State != Complete {
			continue
		}
		pts = append(pts, search.Point{Values: Values(sp, t), Violation: Violation(sp, t)})
		idx = append(idx, i)
	}
	return pts, idx
}

func observation(sp *space.Space, t Trial) search.Observation {
	o := search.Observation{Config: t.Config, Value: math.NaN()}
	if t.Failure != nil {
		o.Class = string(t.Failure.Class)
	}
	switch t.State {
	case Complete:
		o.State, o.Values, o.Violation = search.Complete, Values(sp, t), Violation(sp, t)
		o.Value = o.Values[0]
	case Infeasible:
		o.State = search.Infeasible
	case Pruned:
		// The sampler learns the projected final values, when the pruner
		// made one, rather than a penalty.
		o.State = search.Pruned
		if n := len(t.Intermediate); n > 0 && len(t.Intermediate[n-1].Projected) == len(sp.Objectives) {
			o.Values = t.Intermediate[n-1].Projected
			o.Value = o.Values[0]
		}
	default:
		o.State = search.Failed
	}
	return o
}

func observations(sp *space.Space, ts []Trial) []search.Observation {
	var out []search.Observation
	seen := map[string]bool{}
	for _, t := range ts {
		if t.State == Running || isInterrupted(t) || seen[t.Config.Key()] {
			continue
		}
		seen[t.Config.Key()] = true
		out = append(out, observation(sp, t))
	}
	return out
}
