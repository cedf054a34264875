package studies

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/studies/pack"
	"github.com/servetune/servetune/studies/store"
)

// errWait says nothing can start until a running trial finishes.
var errWait = errors.New("wait for a running trial")

// finished is a worker's trial coming back to the loop.
type finished struct {
	t     store.Trial
	slot  int
	fatal error
	// stopBeat ends the trial's heartbeat once its result is written
	// (nil on the virtual clock): a result waiting for the store to
	// come back stays leased.
	stopBeat context.CancelFunc
	// cut says a write of this result failed for an outage: it may have
	// been made all the same, its answer lost.
	cut bool
	// took is the trial's time on its worker.
	took time.Duration
	// learned says the loop taught the sampler this result before its
	// write came back (writeBehind): settling the write only lands it.
	learned bool
}

// wrote is a write behind the loop coming back: fs's results as
// written (ts) and the store's answer to each.
type wrote struct {
	fs   []finished
	ts   []store.Trial
	errs []error
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
	// refused counts the claims in a row the store refused as taken.
	refused int
	stopErr error
	slots   []bool // worker i busy
	// told are the trials the sampler has learnt (or skipped, when
	// interrupted), so a shared store's refresh teaches each once.
	told map[int]bool
	// devices are the GPUs trials are packed onto; waiting is a pick
	// that did not fit them yet, taken the devices reserved for the next
	// start.
	devices *pack.GPUs
	waiting *next
	taken   []string
	// clock is the virtual clock (RunOptions.Virtual), nil on real time.
	clock *virtualClock
	// store follows the store's outages; unwritten are finished trials
	// whose result waits for it to come back (still in flight).
	store     store.Outage
	unwritten []finished
	// unsure is a claim the store did not answer (nil: none), settled
	// before the next one.
	unsure *cutClaim
	// pace times the trials against the loop's work for each, and
	// launched counts the trials started since the loop last waited.
	pace     pace
	launched int
	// wide is the width last logged.
	wide int
	// wrote brings back the results written behind the loop's next pick
	// (writeBehind); writing counts their trials, still in flight (their
	// workers' slots stay taken) but no longer measuring.
	wrote   chan wrote
	writing int
}

// run is the study loop, for one worker (a sequential study) or
// several: it keeps the workers busy while the study wants more trials
// than are finished or running, and waits for the running ones — its
// own, and in a shared store its peers', which may yet be reclaimed and
// need a retry — before it returns.
func (l *loop) run(ctx context.Context) error {
	l.defaults()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p := newPool(l)
	poll := time.NewTicker(l.Lease / 3)
	defer poll.Stop()
	cancelled := ctx.Done()
	woke := p.Now()
	for {
		if err := p.flush(ctx); err != nil && p.stopErr == nil {
			p.stopErr = err
			cancel()
		}
		p.fill(ctx)
		if p.stopErr == nil {
			p.stopErr = ctx.Err() // a signal between trials: no new one began
		}
		if p.over() {
			return p.stopErr
		}
		if p.clock != nil {
			if err := p.collect(ctx, p.nextVirtual()); err != nil && p.stopErr == nil {
				p.stopErr = err
			}
			continue
		}
		p.pace.worked(p.Now().Sub(woke), p.launched)
		p.launched = 0
		select {
		case f := <-p.done:
			if err := p.collect(ctx, p.drain(f)...); err != nil && p.stopErr == nil {
				p.stopErr = err
				cancel() // a fatal error interrupts the other trials too
			}
		case w := <-p.wrote:
			if err := p.wroteBack(ctx, w); err != nil && p.stopErr == nil {
				p.stopErr = err
				cancel()
			}
		case <-poll.C: // peers' trials end without telling this process
		case <-p.retry(): // the store was down: try it again
		case <-cancelled:
			cancelled = nil // from now on, only wait for the trials in flight
			if p.stopErr == nil {
				p.stopErr = ctx.Err()
			}
		}
		woke = p.Now()
	}
}

// over says the loop may return: nothing of its own in flight and either
// a reason to stop or nothing left to wait for. A store that is down is
// something to wait for, as a result waiting to be written is: a claim or
// a read that failed for an outage is tried again, within --store-outage,
// whether or not a trial is in flight — a worker never ends its study
// early, exit 0, because the store went away between two trials. A study
// whose n_trials are all written has nothing left to wait for.
func (p *pool) over() bool {
	if p.inFlight > 0 {
		return false
	}
	if p.stopErr == nil && p.store.Down() && p.clock != nil {
		// The virtual clock has nothing to advance to while it waits.
		p.stopErr = fmt.Errorf("%w (the lab's virtual clock cannot wait for it)", store.ErrStoreOutage)
	}
	waitStore := p.store.Down() && p.index().done < p.Space.Study.NTrials
	return p.stopErr != nil || (!waitStore && !p.peersRunning())
}

// newPool is the loop's workers, none busy yet.
func newPool(l *loop) *pool {
	p := &pool{loop: l, done: make(chan finished), wrote: make(chan wrote), slots: make([]bool, l.Workers), told: told(l.trials), devices: pack.New(l.Devices), store: store.Outage{Bound: l.StoreOutage}}
	if l.Virtual {
		p.useVirtualClock()
	}
	return p
}

// told marks the trials the sampler was built from.
func told(ts []store.Trial) map[int]bool {
	out := map[int]bool{}
	for _, t := range ts {
		if t.State != store.Running {
			out[t.Number] = true
		}
	}
	return out
}

// peersRunning says whether other workers of a shared store still run
// trials this process must wait for.
func (p *pool) peersRunning() bool {
	return p.Shared && len(p.index().running) > 0
}

// defaults fills the parallel options left unset.
func (l *loop) defaults() {
	l.Workers = max(l.Workers, 1)
	if l.db == nil {
		l.db = l.Store
	}
	if l.Lease <= 0 {
		l.Lease = store.DefaultLease
	}
	if l.WorkerID == "" {
		l.WorkerID = DefaultWorkerID()
	}
	if l.StoreOutage <= 0 {
		l.StoreOutage = store.DefaultStoreOutage
	}
	var mu sync.Mutex
	onEvent := l.OnEvent
	l.OnEvent = func(e Event) { // workers report phases concurrently
		mu.Lock()
		defer mu.Unlock()
		onEvent(e)
	}
}

// DefaultWorkerID names this process's workers: host:pid.
func DefaultWorkerID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s:%d", host, os.Getpid())
}

// fill starts trials until every worker is busy, the study needs no
// more, or nothing can start before a running trial finishes. The
// sampler is asked for one batch for the free slots; what a fill did not
// start is dropped, as the trials it then waits for teach the sampler.
func (p *pool) fill(ctx context.Context) {
	defer func() { p.proposed = nil }()
	for p.stopErr == nil && p.measuring() < p.width() && p.inFlight < p.Workers && ctx.Err() == nil {
		if err := p.refresh(ctx); err != nil {
			p.stopErr = p.store.Failed(err, p.Now(), p.Log) // nil: ride the outage out
			return
		}
		if adopted, err := p.adopt(ctx); err != nil || adopted {
			if err != nil {
				p.stopErr = p.store.Failed(err, p.Now(), p.Log)
				return
			}
			continue
		}
		if !p.wanted(ctx) {
			return
		}
		n, err := p.next(ctx)
		if p.blocked(err) || p.held(n) {
			return
		}
		err = p.start(ctx, n)
		if err != nil && p.unsure == nil {
			p.devices.Release(p.taken)
		}
		if errors.Is(err, store.ErrFull) {
			return
		}
		if p.stopErr = p.takenStreak(n, err); p.stopErr != nil {
			return
		}
		if err != nil && !errors.Is(err, store.ErrTaken) {
			if p.stopErr = p.store.Failed(err, p.Now(), p.Log); p.stopErr == nil {
				return // the store is down: claim again when it is back
			}
		}
	}
}

// measuring counts the trials in flight whose results the sampler has
// not learnt yet: a result written behind the loop (writeBehind) is
// learnt, so it no longer bears on the search's course, only holds its
// worker's slot until the store has it.
func (p *pool) measuring() int {
	return p.inFlight - p.writing
}

// width is how many trials the loop keeps measuring: every worker on
// the virtual clock (the lab's studies stay reproducible), else as many
// as are worth it (pace).
func (p *pool) width() int {
	if p.clock != nil {
		return p.Workers
	}
	w := p.pace.width(p.Workers)
	if w != p.wide && p.Workers > 1 {
		p.wide = w
		p.Log.Debug().Int("trials", w).Int("workers", p.Workers).Dur("trial", p.pace.trial).Dur("loop_per_trial", p.pace.pick).Msg("trials in flight")
	}
	return w
}

// next is the pick held back for want of GPUs, else a new pick. A pick
// that needs more GPUs than the worker owns is refused here: it is
// recorded as never launched, like a config breaking a rule.
func (p *pool) next(ctx context.Context) (next, error) {
	if p.waiting != nil {
		return *p.waiting, nil
	}
	return p.pick(ctx)
}

// blocked decides what a pick's error means: wait, stop, or go on.
func (p *pool) blocked(err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, errWait) || errors.Is(err, search.ErrPending):
		if p.inFlight == 0 && !p.peersRunning() {
			p.stopErr = fmt.Errorf("the sampler waits for a trial but none is running: %w", err)
		}
	case errors.Is(err, search.ErrExhausted):
		if p.inFlight == 0 && !p.peersRunning() {
			p.Log.Info().Int("trials", p.index().done).Msg("every config of the space has been measured; stopping early")
		}
	default:
		p.stopErr = err
	}
	return true
}

// wanted decides whether the study wants another trial started: the
// running ones count toward n_trials, so the study never over-runs. It
// sizes the sampler's next batch: the free slots the study still wants.
func (p *pool) wanted(ctx context.Context) bool {
	busy := p.index().done + len(p.index().running)
	stop, err := p.stop(ctx, busy)
	if stop && err != nil && p.stopErr == nil {
		p.stopErr = err
	}
	p.batch = min(p.width()-p.measuring(), p.Workers-p.inFlight, p.Space.Study.NTrials-busy)
	return !stop
}

// refresh reclaims expired leases and, in a shared store, reads what
// the other workers claimed and finished, teaching the sampler the
// trials it has not seen.
func (p *pool) refresh(ctx context.Context) error {
	if err := p.reclaim(ctx); err != nil || !p.Shared {
		return err
	}
	all, err := p.db.Trials(ctx)
	if err != nil {
		return err
	}
	p.store.Answered(p.Now(), p.Log)
	p.resetTrials(all)
	for _, t := range all {
		if t.State == store.Running || p.told[t.Number] {
			continue
		}
		p.told[t.Number] = true
		if t.State != store.Interrupted {
			if err := p.tell(ctx, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// reclaim takes back trials whose worker stopped renewing its lease.
// While a result is written behind the loop the store is busy with it
// (SQLite has one connection): the reclaim waits for start, which makes
// it once the write is in, instead of holding up the pick.
func (p *pool) reclaim(ctx context.Context) error {
	if p.writing > 0 || !p.store.MayReclaim(p.Now(), p.Lease) {
		return nil
	}
	lost, err := p.db.ReclaimExpired(ctx, p.Now())
	if err != nil {
		return err
	}
	p.store.Answered(p.Now(), p.Log)
	for _, t := range lost {
		p.Log.Warn().Int("trial", t.Number).Str("worker", t.Worker).Msg("trial's lease expired; its config is retried once")
		p.replace(t)
	}
	return nil
}

// caps are the study's bounds on a claim: n_trials, --repeat, and the
// search's cap on measuring one config again (confirmations, noise
// repeats), which the store checks in the claim's transaction.
func (p *pool) caps() store.Caps {
	return store.Caps{Trials: p.Space.Study.NTrials, Repeat: p.Repeat, Measurements: search.MaxMeasurements}
}

// start claims the trial for a free worker and runs it there. The
// results written behind the pick are in the store first, so the claim's
// checks (a repeat, a revisit, a confirmation counts the trials of its
// config by state) see what a sequential study's claim sees, and a crash
// loses at most the trials in flight: never a result two claims old.
func (p *pool) start(ctx context.Context, n next) error {
	if p.writing > 0 {
		if err := p.awaitWrites(ctx); err != nil {
			return err
		}
		if err := p.reclaim(ctx); err != nil { // the one refresh skipped
			return err
		}
	}
	slot := slices.Index(p.slots, false)
	t := p.newTrial(n)
	t.Devices = p.taken
	var until time.Time // unleased: the lock holder's one trial at a time
	if p.leased {
		t.Worker, until = fmt.Sprintf("%s/%d", p.WorkerID, slot), p.Now().Add(p.Lease)
	}
	err := p.db.ClaimNext(ctx, &t, until, p.caps())
	if !store.Unreachable(err) {
		p.store.Answered(p.Now(), p.Log) // only a call answered says the store is back
	}
	if err != nil {
		p.claimCutOff(t, slot, err)
		return err
	}
	p.record(t)
	p.launch(ctx, t, slot)
	return nil
}

// launch runs a claimed trial on worker slot.
func (p *pool) launch(ctx context.Context, t store.Trial, slot int) {
	p.slots[slot] = true
	p.inFlight++
	p.launched++
	p.OnEvent(Event{Kind: TrialStarted, Trial: t, Done: p.index().done, Total: p.Space.Study.NTrials, Best: p.best()})
	w := *p.loop
	w.trials, w.ix, w.view = nil, nil, p.viewFor(t)
	if p.clock != nil {
		p.runVirtual(ctx, &w, t, slot)
		return
	}
	go w.work(ctx, t, slot, p.done)
}

// work measures one trial on a worker while its lease, if it has one,
// is renewed.
func (l *loop) work(ctx context.Context, t store.Trial, slot int, done chan<- finished) {
	trialCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stopBeat context.CancelFunc
	if t.Worker != "" {
		// The lease is renewed until the result is written, however long
		// the store takes to come back, and even after a signal.
		var beat context.Context
		beat, stopBeat = context.WithCancel(context.WithoutCancel(ctx))
		go store.Heartbeat(beat, l.db, t, l.Lease, l.Now, cancel)
	}
	began := l.Now()
	fatal := l.measure(trialCtx, &t)
	done <- finished{t: t, slot: slot, fatal: fatal, stopBeat: stopBeat, took: l.Now().Sub(began)}
}

// drain adds to f the results other workers are already waiting to
// hand back, so that they are written together (writeAll). It waits for
// none: a result is never held back for another.
func (p *pool) drain(f finished) []finished {
	fs := []finished{f}
	for len(fs) < p.measuring() {
		select {
		case g := <-p.done:
			fs = append(fs, g)
		default:
			return fs
		}
	}
	return fs
}

// collect records the trials workers finished and teaches the sampler.
func (p *pool) collect(ctx context.Context, fs ...finished) error {
	fatal := false
	for _, f := range fs {
		p.devices.Release(f.t.Devices)
		if f.took > 0 {
			p.pace.trialTook(f.took)
		}
		fatal = fatal || f.fatal != nil
	}
	b := behind{workers: p.Workers, virtual: p.clock != nil, shared: p.Shared, storeDown: p.store.Down(),
		backlog: len(p.unwritten) > 0 || p.unsure != nil, fatal: fatal, stopping: ctx.Err() != nil}
	if b.ok() {
		return p.writeBehind(ctx, fs)
	}
	return p.writeAll(ctx, fs)
}

// behind is what decides whether results are written behind the loop's
// next pick (writeBehind) or before it (writeAll).
type behind struct {
	workers int
	// virtual: the lab's virtual clock, whose studies stay as they were;
	// shared: a store other processes read, which must not see the
	// trial running after this process's sampler has learnt it.
	virtual, shared bool
	// storeDown, backlog (results waiting for the store, a claim it did
	// not answer), fatal (a trial that stops the study) and stopping
	// (a signal) keep to the in-line write and its outage handling.
	storeDown, backlog, fatal, stopping bool
}

// ok says the results may be written behind the next pick. It needs a
// spare worker: one worker is the sequential study, each result stored
// before the next pick; with several, a result being written is one of
// the trials in flight a crash may lose, and its worker's slot stays
// taken until the store has it, so no more trials are ever unrecorded
// than --workers.
func (b behind) ok() bool {
	return b.workers > 1 && !b.virtual && !b.shared && !b.storeDown && !b.backlog && !b.fatal && !b.stopping
}

// writeBehind teaches the sampler fs's results at once and writes them
// on another goroutine, so the store's commit (SQL, an fsync) overlaps
// the loop's next ask instead of preceding it. The search's course is
// the sequential one: the sampler learns the same results in the same
// order before the same ask, and the next claim waits for the write
// (start). The metrics are cleaned here as the write would clean them,
// so the sampler learns what the store keeps and the writer only reads.
func (p *pool) writeBehind(ctx context.Context, fs []finished) error {
	ts := make([]store.Trial, len(fs))
	for i := range fs {
		fs[i].t.Metrics = store.DefinedMetrics(fs[i].t.Metrics)
		fs[i].learned = true
		ts[i] = fs[i].t
	}
	p.writing += len(fs)
	go func() {
		errs := p.finishAll(ctx, ts)
		p.wrote <- wrote{fs: fs, ts: ts, errs: errs}
	}()
	var first error
	for _, f := range fs {
		p.replace(f.t)
		if err := p.teach(ctx, f.t, nil); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// awaitWrites settles the writes behind the loop still in flight.
func (p *pool) awaitWrites(ctx context.Context) error {
	var first error
	for p.writing > 0 {
		if err := p.wroteBack(ctx, <-p.wrote); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// wroteBack settles a write behind the loop as an in-line write is
// settled: landed, kept for the store's return, or dropped.
func (p *pool) wroteBack(ctx context.Context, w wrote) error {
	p.writing -= len(w.fs)
	var first error
	for i, f := range w.fs {
		if err := p.settle(ctx, f, w.ts[i], w.errs[i]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// batchFinisher writes several trials' results in one transaction
// (store.Store.FinishLeasedAll).
type batchFinisher interface {
	FinishLeasedAll(ctx context.Context, ts []*store.Trial) ([]error, error)
}

// writeAll stores finished trials' results, in one transaction where
// the store can (one commit, one fsync, for all the results in hand),
// then settles each as write does, in order; it returns the first error.
func (p *pool) writeAll(ctx context.Context, fs []finished) error {
	ts := make([]store.Trial, len(fs))
	for i, f := range fs {
		ts[i] = f.t
	}
	errs := p.finishAll(ctx, ts)
	var first error
	for i, f := range fs {
		if err := p.settle(ctx, f, ts[i], errs[i]); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// finishAll writes ts, each's error (a batch that failed: its error for
// every trial, none of them written).
func (p *pool) finishAll(ctx context.Context, ts []store.Trial) []error {
	wctx, cancel := store.Graceful(ctx)
	defer cancel()
	errs := make([]error, len(ts))
	if b, ok := p.db.(batchFinisher); ok && len(ts) > 1 {
		ptrs := make([]*store.Trial, len(ts))
		for i := range ts {
			ptrs[i] = &ts[i]
		}
		lost, err := b.FinishLeasedAll(wctx, ptrs)
		for i := range errs {
			if errs[i] = err; err == nil {
				errs[i] = lost[i]
			}
		}
		return errs
	}
	for i := range ts {
		errs[i] = p.db.FinishLeased(wctx, &ts[i])
	}
	return errs
}

// settle decides what the store's answer err to writing f (as t) means.
// While the store is down the trial stays in flight, its result kept to
// be written when the store is back (flush) — unless servetune is
// stopping, or the outage outlasted its bound: the result is then lost,
// and the trial, its lease expired, is retried as an interrupted one.
func (p *pool) settle(ctx context.Context, f finished, t store.Trial, err error) error {
	if err != nil && !errors.Is(err, store.ErrLeaseLost) {
		stop := p.store.Failed(err, p.Now(), p.Log)
		if stop == nil && ctx.Err() == nil {
			f.cut = true
			p.unwritten = append(p.unwritten, f)
			return nil
		}
		p.landed(f)
		p.Log.Error().Err(err).Int("trial", t.Number).Msg("the study store is unreachable and this worker is stopping: the trial's result is lost; its lease expires and its config is retried")
		return cmp.Or(stop, f.fatal)
	}
	p.store.Answered(p.Now(), p.Log)
	if errors.Is(err, store.ErrLeaseLost) && f.cut && p.wroteBefore(ctx, t) {
		err = nil // an earlier try was written, its answer lost in the outage
	}
	p.landed(f)
	if errors.Is(err, store.ErrLeaseLost) {
		p.Log.Warn().Int("trial", t.Number).Msg("trial finished after its lease was reclaimed; its result is dropped")
		return f.fatal
	}
	if f.learned {
		p.observe(ctx, t) // the observer hears of stored trials only
		return nil
	}
	return p.learn(ctx, t, f.fatal)
}

// landed takes a trial out of flight: its worker is free again.
func (p *pool) landed(f finished) {
	p.inFlight--
	p.slots[f.slot] = false
	if f.stopBeat != nil {
		f.stopBeat()
	}
}

// learn records a written trial and teaches the sampler.
func (p *pool) learn(ctx context.Context, t store.Trial, fatal error) error {
	p.replace(t)
	p.observe(ctx, t)
	return p.teach(ctx, t, fatal)
}

// teach tells the sampler a finished trial and reports it.
func (p *pool) teach(ctx context.Context, t store.Trial, fatal error) error {
	if p.told[t.Number] = true; t.State != store.Interrupted {
		if err := p.tell(ctx, t); err != nil {
			return err
		}
	}
	p.OnEvent(Event{Kind: TrialFinished, Trial: t, Done: p.index().done, Total: p.Space.Study.NTrials, Best: p.best()})
	if fatal != nil {
		return fatal
	}
	return p.ruleStreak(t)
}

// flush writes the results that waited for the store, oldest first.
func (p *pool) flush(ctx context.Context) error {
	waiting := p.unwritten
	p.unwritten = nil
	if len(waiting) == 0 {
		return nil
	}
	return p.writeAll(ctx, waiting)
}

// retry fires when the store should be tried again: while it is down or
// results wait for it (nil otherwise: never).
func (p *pool) retry() <-chan time.Time {
	if !p.store.Down() && len(p.unwritten) == 0 {
		return nil
	}
	return time.After(p.store.RetryIn())
}

// maxTakenStreak bounds consecutive claims the store refuses as taken.
// Another worker's claim is seen at the next refresh, so a race costs a
// claim or two; a longer streak means the loop's picks and the store
// disagree, and asking again would only spin.
const maxTakenStreak = 64

// takenStreak stops a study whose picks the store keeps refusing.
func (p *pool) takenStreak(n next, err error) error {
	if !errors.Is(err, store.ErrTaken) {
		p.refused = 0
		return nil
	}
	if p.refused++; p.refused < maxTakenStreak {
		return nil
	}
	return fmt.Errorf("the store refused %d picks in a row as already taken (the last: a %s trial of %s); stopping instead of asking again", p.refused, n.origin, n.cfg.Key())
}

// ruleStreak stops a study whose sampler keeps proposing configs that
// break the space's rules.
func (p *pool) ruleStreak(t store.Trial) error {
	if p.streak++; !t.BrokeRule() {
		p.streak = 0
	}
	if p.streak >= maxRuleStreak {
		return fmt.Errorf("the sampler proposed %d configs in a row that break the space's rules; loosen the rules or narrow the domains", p.streak)
	}
	return nil
}
