package studies

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/servetune/servetune/search"
)

// errWait says nothing can start until a running trial finishes.
var errWait = errors.New("wait for a running trial")

// finished is a worker's trial coming back to the loop.
type finished struct {
	t     Trial
	slot  int
	fatal error
}

// pool runs up to Workers trials at once. One goroutine (the loop's)
// owns the sampler, the trial list and the store's claims; workers only
// measure, each on a snapshot of the trials taken at its start (the
// incumbents a trial is judged against are fixed then anyway).
type pool struct {
	*loop
	done     chan finished
	inFlight int
	streak   int
	stopErr  error
	slots    []bool // worker i busy
}

// runParallel is run for several workers: it keeps the workers busy
// while the study wants more trials than are finished or running, and
// waits for the running ones before it returns.
func (l *loop) runParallel(ctx context.Context) error {
	l.defaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := &pool{loop: l, done: make(chan finished), slots: make([]bool, l.Workers)}
	for {
		p.fill(ctx)
		if p.inFlight == 0 {
			return p.stopErr
		}
		if err := p.collect(ctx, <-p.done); err != nil && p.stopErr == nil {
			p.stopErr = err
			cancel() // a fatal error interrupts the other trials too
		}
	}
}

// defaults fills the parallel options left unset.
func (l *loop) defaults() {
	if l.Lease <= 0 {
		l.Lease = DefaultLease
	}
	if l.WorkerID == "" {
		host, _ := os.Hostname()
		l.WorkerID = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	var mu sync.Mutex
	onEvent := l.OnEvent
	l.OnEvent = func(e Event) { // workers report phases concurrently
		mu.Lock()
		defer mu.Unlock()
		onEvent(e)
	}
}

// fill starts trials until every worker is busy, the study needs no
// more, or nothing can start before a running trial finishes.
func (p *pool) fill(ctx context.Context) {
	for p.stopErr == nil && p.inFlight < p.Workers {
		if err := p.reclaim(ctx); err != nil {
			p.stopErr = err
			return
		}
		if !p.wanted(ctx) {
			return
		}
		n, err := p.pick()
		switch {
		case errors.Is(err, errWait) || errors.Is(err, search.ErrPending):
			if p.inFlight == 0 {
				p.stopErr = fmt.Errorf("the sampler waits for a trial but none is running: %w", err)
			}
			return
		case errors.Is(err, search.ErrExhausted):
			if p.inFlight == 0 {
				p.Log.Info().Int("trials", countDone(p.trials)).Msg("every config of the space has been measured; stopping early")
			}
			return
		case err != nil:
			p.stopErr = err
			return
		}
		if err := p.start(ctx, n); err != nil {
			p.stopErr = err
		}
	}
}

// wanted decides whether the study wants another trial started: the
// running ones count toward n_trials, so the study never over-runs.
func (p *pool) wanted(ctx context.Context) bool {
	stop, err := p.stop(ctx, countDone(p.trials)+p.inFlight)
	if stop && err != nil && p.stopErr == nil {
		p.stopErr = err
	}
	return !stop
}

// reclaim takes back trials whose worker stopped renewing its lease.
func (p *pool) reclaim(ctx context.Context) error {
	lost, err := p.Store.ReclaimExpired(ctx, p.Now())
	if err != nil {
		return err
	}
	for _, t := range lost {
		p.Log.Warn().Int("trial", t.Number).Str("worker", t.Worker).Msg("trial's lease expired; its config is retried once")
		p.replace(t)
	}
	return nil
}

// replace puts t's newest record in the trial list.
func (p *pool) replace(t Trial) {
	for i := range p.trials {
		if p.trials[i].Number == t.Number {
			p.trials[i] = t
			return
		}
	}
	p.trials = append(p.trials, t)
}

// start claims the trial for a free worker and runs it there.
func (p *pool) start(ctx context.Context, n next) error {
	slot := slices.Index(p.slots, false)
	t := Trial{Config: n.cfg, Origin: n.origin, RetryOf: n.retryOf, Start: p.Now(), Worker: fmt.Sprintf("%s/%d", p.WorkerID, slot)}
	if prev := p.measured(n.cfg); prev != nil {
		t.Origin, t.ReusedFrom = "reused", prev.Number
	}
	if err := p.Store.Claim(ctx, &t, p.Now().Add(p.Lease)); err != nil {
		return err
	}
	p.slots[slot] = true
	p.inFlight++
	p.trials = append(p.trials, t)
	p.OnEvent(Event{Kind: TrialStarted, Trial: t, Done: countDone(p.trials), Total: p.Space.Study.NTrials, Best: p.best()})
	w := *p.loop
	w.trials = slices.Clone(p.trials)
	go w.work(ctx, t, slot, p.done)
	return nil
}

// work measures one trial on a worker while its lease is renewed.
func (l *loop) work(ctx context.Context, t Trial, slot int, done chan<- finished) {
	trialCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	beat, stopBeat := context.WithCancel(trialCtx)
	go heartbeat(beat, l.Store, t, l.Lease, l.Now, cancel)
	fatal := l.measure(trialCtx, &t)
	stopBeat()
	done <- finished{t: t, slot: slot, fatal: fatal}
}

// collect records a trial a worker finished and teaches the sampler.
func (p *pool) collect(ctx context.Context, f finished) error {
	p.inFlight--
	p.slots[f.slot] = false
	t := f.t
	err := p.Store.FinishLeased(context.WithoutCancel(ctx), &t)
	if errors.Is(err, ErrLeaseLost) {
		p.Log.Warn().Int("trial", t.Number).Msg("trial finished after its lease was reclaimed; its result is dropped")
		return f.fatal
	}
	if err != nil {
		return err
	}
	p.replace(t)
	if t.State != Interrupted {
		if err := p.tell(t); err != nil {
			return err
		}
	}
	p.OnEvent(Event{Kind: TrialFinished, Trial: t, Done: countDone(p.trials), Total: p.Space.Study.NTrials, Best: p.best()})
	if f.fatal != nil {
		return f.fatal
	}
	return p.ruleStreak(t)
}

// ruleStreak stops a study whose sampler keeps proposing configs that
// break the space's rules.
func (p *pool) ruleStreak(t Trial) error {
	if p.streak++; !t.BrokeRule() {
		p.streak = 0
	}
	if p.streak >= maxRuleStreak {
		return fmt.Errorf("the sampler proposed %d configs in a row that break the space's rules; loosen the rules or narrow the domains", p.streak)
	}
	return nil
}
