package studies

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
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
	Trial store.Trial
	Phase objective.Phase
	// Progress is the fraction of the trial's benchmarks done (0 to 1),
	// set on the phase events sent at each benchmark checkpoint.
	Progress float64
	// Done counts finished trials (interrupted ones excluded) of Total.
	Done, Total int
	// Best is the best feasible trial so far on the first objective.
	Best *store.Trial
}

// RunOptions configures Run.
type RunOptions struct {
	Space  *space.Space
	Store  *store.Store
	Runner objective.Runner
	// Dir is the study's directory; trial-N/ directories go under it.
	Dir studydir.Dir
	// Repeat measures each config this many times (default 1); more gives
	// noise estimates, at the cost of launches.
	Repeat int
	// Confirm is the share of n_trials spent measuring the baseline and
	// the best configs again, to measure the noise and confirm the best
	// (studies/confirm.go; 0: none, search.DefaultConfirmShare is the
	// CLI's default).
	Confirm float64
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
	// WarmStart are configs to run after Enqueue, taken from an earlier
	// study's winners (--warm-start); they are recorded as warm-start.
	WarmStart []space.Config
	// Search tunes the sampler.
	Search search.Options
	// Workers is how many trials run at once (default 1: one after
	// another, as a study always ran). With more, each trial is claimed
	// under a lease renewed by heartbeat (docs/reliability.md).
	Workers int
	// WorkerID names this process's workers in their leases (default
	// host:pid); worker i is WorkerID/i.
	WorkerID string
	// Lease is how long a claim lasts without a heartbeat (default
	// DefaultLease).
	Lease time.Duration
	// StoreOutage is how long workers ride out a store they cannot reach
	// before they stop (default DefaultStoreOutage): the trials in flight
	// keep running, their results are written when it is back.
	StoreOutage time.Duration
	// Shared says workers in other processes (other hosts) run the same
	// study in Store: no study lock protects it, so trials left running
	// are theirs until their lease expires, and each claim re-reads the
	// study. `servetune worker` sets it.
	Shared bool
	// Devices are the GPUs this process's workers share (--gpus, or the
	// scheduler's list): each trial gets GPUNeed of them to itself and
	// waits until that many are free. Empty: no packing.
	Devices []string
	// GPUNeed is a trial's GPU count (default engines.GPUs).
	GPUNeed func(space.Config) int
	// Virtual runs parallel workers on a virtual clock: each trial lasts
	// the device time its runner charged divided by its GPUs, and trials
	// finish in that order without waiting, so the lab measures N workers'
	// wall-clock on the simulator deterministically.
	Virtual bool
	// ReuseKey says when two configs are the same measurement (e.g. the
	// rendered engine command: a knob at its engine default vs absent);
	// nil is space.Config.Key.
	ReuseKey func(space.Config) string
	// Observer, if set, hears of each trial once it is stored as
	// finished (e.g. the Optuna mirror); its failures are logged, never
	// the study's.
	Observer TrialObserver
	// db, when set, stands in front of Store for the loop's reads,
	// claims, leases and results (tests stop it at chosen moments).
	db trialStore
}

// TrialObserver hears of each finished trial after the store has it.
type TrialObserver interface {
	TrialFinished(ctx context.Context, t store.Trial) error
}

// observe tells the observer of a stored finished trial.
func (o RunOptions) observe(ctx context.Context, t store.Trial) {
	if o.Observer == nil {
		return
	}
	if err := o.Observer.TrialFinished(ctx, t); err != nil {
		o.Log.Warn().Err(err).Int("trial", t.Number).Msg("trial not mirrored yet; retried after the next trial")
	}
}

// ErrBudget says the GPU-time budget ended the run before n_trials.
var ErrBudget = errors.New("GPU-time budget spent")

// ErrTimeout says the study's timeout ended the run before n_trials.
var ErrTimeout = errors.New("study timeout reached")

// Run resumes or starts the study and runs trials until n_trials of them
// have finished (interrupted trials do not count: their config is retried
// once), the study timeout passes, the space is exhausted, or ctx is
// cancelled.
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
	if err := recoverOwned(ctx, o); err != nil {
		return err
	}
	trials, err := firstRead(ctx, o)
	if err != nil {
		return err
	}
	sp := o.Space
	seed := sp.Study.Seed + int64(len(trials)) // a resumed run must not replay the same random draws
	if o.Shared {
		seed += workerSeed(o.WorkerID) // peers starting together must not draw alike
	}
	sampler, err := samplers.New(ctx, sp.Study.Sampler, sp, seed, observations(sp, trials), o.Log, o.Search)
	if err != nil {
		return err
	}
	l := &loop{RunOptions: o, sampler: sampler, trials: trials, started: o.Now(), leased: o.Workers > 1 || o.Shared || o.Virtual}
	defer l.saveOutlook(ctx)
	return l.run(ctx)
}

// firstRead reads the study's trials before the first pick. A shared
// store that does not answer is ridden out within --store-outage, as
// every later read, claim and write is: an outage between opening the
// study and this read must not end a worker, exit 1, with trials left.
func firstRead(ctx context.Context, o RunOptions) ([]store.Trial, error) {
	db := cmp.Or[trialStore](o.db, o.Store)
	if !o.Shared {
		return db.Trials(ctx)
	}
	var trials []store.Trial
	out := &store.Outage{Bound: cmp.Or(max(o.StoreOutage, 0), store.DefaultStoreOutage)}
	err := store.RideOut(ctx, out, o.Log, func(ctx context.Context) (err error) {
		trials, err = db.Trials(ctx)
		return err
	})
	return trials, err
}

// recoverOwned records as interrupted the trials a dead predecessor left
// running. Only the holder of the study's lock may: in a shared store the
// running trials are peers' until their leases expire.
func recoverOwned(ctx context.Context, o RunOptions) error {
	if o.Shared {
		return nil
	}
	interrupted, err := o.Store.RecoverInterrupted(ctx, o.Now())
	for _, t := range interrupted {
		o.Log.Warn().Int("trial", t.Number).Msg("trial was interrupted by a previous run; its config is retried once")
	}
	return err
}

// workerSeed spreads workers' random streams apart.
func workerSeed(id string) int64 {
	h := int64(0)
	for _, b := range []byte(id) {
		h = h*31 + int64(b)
	}
	return h & 0xffffff
}

type loop struct {
	RunOptions
	sampler search.Sampler
	// trials is the study's trial list, changed only by record, replace
	// and resetTrials, which keep ix, its index, in step (looptrials.go).
	trials []store.Trial
	ix     *trialIndex
	// view is a worker's view of the study (nil in the loop itself).
	view    *trialView
	started time.Time
	// leased says trials are claimed under a lease renewed by heartbeat:
	// with several workers, peers, or the virtual clock. One trial at a
	// time under the study's lock needs none (nobody else may claim), so
	// its rows name no worker, as before workers existed.
	leased bool
	// batch is how many configs the next ask may take from the sampler
	// (the free slots the study still wants filled); proposed holds the
	// rest of the last batch, used before the sampler is asked again.
	batch    int
	proposed []space.Config
	// spare is the trials' spared verdicts, each given once (spared.go):
	// confirmation asks for every config at every pick.
	spare sparedState
}

// maxRuleStreak bounds consecutive rule-breaking proposals: a sampler that
// cannot find a valid config should stop the study, not spin.
const maxRuleStreak = 200

// stop decides, before each trial, whether the study is over.
func (l *loop) stop(ctx context.Context, done int) (bool, error) {
	switch {
	case done >= l.Space.Study.NTrials:
		return true, nil
	case l.Space.Study.Timeout > 0 && l.Now().Sub(l.started) >= l.Space.Study.Timeout:
		return true, ErrTimeout
	case l.Budget > 0 && l.spent() >= l.Budget:
		return true, ErrBudget
	}
	err := ctx.Err()
	return err != nil, err
}

// ask is the sampler's next proposal: the next of the last batch, else
// the first of a new batch of up to l.batch configs, asked given the
// configs of the trials still running so none is proposed twice.
func (l *loop) ask(ctx context.Context) (space.Config, error) {
	if len(l.proposed) == 0 {
		var pending []space.Config
		for _, i := range l.index().running {
			pending = append(pending, l.trials[i].Config)
		}
		cs, err := l.sampler.Ask(ctx, max(l.batch, 1), pending)
		if err != nil {
			return nil, err
		}
		l.proposed = cs
	}
	c := l.proposed[0]
	l.proposed = l.proposed[1:]
	return c, nil
}

// tell teaches the sampler a finished trial.
func (l *loop) tell(ctx context.Context, t store.Trial) error {
	return l.sampler.Tell(ctx, observation(l.Space, t, l.index().baselineOf(l.trials)))
}
