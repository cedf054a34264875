package studies

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func TestBehindWritesBehindOnlyWithASpareWorkerAndASettledStore(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    behind
		want bool
	}{
		{"four workers, store up", behind{workers: 4}, true},
		{"two workers", behind{workers: 2}, true},
		{"one worker: the sequential study", behind{workers: 1}, false},
		{"the lab's virtual clock", behind{workers: 4, virtual: true}, false},
		{"a shared store", behind{workers: 4, shared: true}, false},
		{"the store is down", behind{workers: 4, storeDown: true}, false},
		{"results wait for the store", behind{workers: 4, backlog: true}, false},
		{"a fatal trial", behind{workers: 4, fatal: true}, false},
		{"stopping on a signal", behind{workers: 4, stopping: true}, false},
	} {
		if got := tc.b.ok(); got != tc.want {
			t.Errorf("%s: ok() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// gatedStore holds result writes until its gate opens and logs the
// writes and claims in the order the store made them.
type gatedStore struct {
	*store.Store
	gate chan struct{}
	mu   sync.Mutex
	ops  []string
}

func (s *gatedStore) FinishLeased(ctx context.Context, t *store.Trial) error {
	<-s.gate
	err := s.Store.FinishLeased(ctx, t)
	s.mu.Lock()
	s.ops = append(s.ops, "write")
	s.mu.Unlock()
	return err
}

func (s *gatedStore) ClaimNext(ctx context.Context, t *store.Trial, until time.Time, caps store.Caps) error {
	err := s.Store.ClaimNext(ctx, t, until, caps)
	s.mu.Lock()
	s.ops = append(s.ops, "claim")
	s.mu.Unlock()
	return err
}

func (s *gatedStore) log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops)
}

// With spare workers a finished trial is learnt at once and its result
// written while the loop picks the next: the sampler and the loop's
// trials have it before the store does, its worker's slot stays taken,
// and the next claim waits for the write, so the store sees writes and
// claims in the sequential study's order.
func TestResultIsWrittenBehindTheNextPickAndBeforeTheNextClaim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sp := studySpace(t, 8, "")
		st, dir := openStore(t)
		db := &gatedStore{Store: st, gate: make(chan struct{})}
		sampler, err := samplers.New(context.Background(), "random", sp, 1, nil, zerolog.Nop(), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l := &loop{RunOptions: RunOptions{Space: sp, Store: st, db: db, Runner: &sleepyRunner{took: time.Second}, Dir: dir, Repeat: 1, Now: time.Now, OnEvent: func(Event) {},
			Log: zerolog.Nop(), Workers: 4, WorkerID: "w", Lease: time.Minute}, sampler: sampler, leased: true, started: time.Now()}
		l.defaults()
		p := newPool(l)
		ctx := t.Context()
		var opened sync.Once
		open := func() { opened.Do(func() { close(db.gate) }) }
		defer open() // a failed check leaves no write held
		cfg := func(mr int64) space.Config {
			return sp.WithTargetEngine(space.Config{"max_running": mr, "mem_fraction": 0.8, "dp": int64(1)})
		}
		if err := p.start(ctx, next{cfg: cfg(16), origin: "sampler"}); err != nil {
			t.Fatal(err)
		}
		f := <-p.done
		collected := make(chan error, 1)
		go func() { collected <- p.collect(ctx, f) }()
		synctest.Wait()
		select {
		case err := <-collected:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("collect waited for the store's write: the result was written in line, before the next pick")
		}
		if got := l.trials[0].State; got != store.Complete {
			t.Errorf("the loop's trial is %s while its write is held, want complete (learnt)", got)
		}
		if !p.told[f.t.Number] {
			t.Error("the sampler was not told the trial before its write came back")
		}
		stored, err := st.Trials(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if stored[0].State != store.Running {
			t.Errorf("the store has the trial %s before the write was let through", stored[0].State)
		}
		if p.inFlight != 1 || p.measuring() != 0 {
			t.Errorf("in flight %d, measuring %d; want the written-behind trial in flight (its slot taken), not measuring", p.inFlight, p.measuring())
		}

		started := make(chan error, 1)
		go func() { started <- p.start(ctx, next{cfg: cfg(32), origin: "sampler"}) }()
		synctest.Wait()
		if ops := db.log(); !slices.Equal(ops, []string{"claim"}) {
			t.Fatalf("store ops %v before the write was let through, want only the first claim", ops)
		}
		open()
		if err := <-started; err != nil {
			t.Fatal(err)
		}
		if ops := db.log(); !slices.Equal(ops, []string{"claim", "write", "claim"}) {
			t.Errorf("store ops %v, want claim, write, claim", ops)
		}
		if p.writing != 0 || p.inFlight != 1 {
			t.Errorf("writing %d, in flight %d after the claim; want the write landed and one trial measuring", p.writing, p.inFlight)
		}
		if err := p.collect(ctx, <-p.done); err != nil {
			t.Fatal(err)
		}
		if err := p.awaitWrites(ctx); err != nil {
			t.Fatal(err)
		}
		if p.inFlight != 0 {
			t.Errorf("%d trials in flight once the writes are back", p.inFlight)
		}
		stored, err = st.Trials(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range stored {
			if tr.State != store.Complete {
				t.Errorf("stored trial %d is %s, want complete", tr.Number, tr.State)
			}
		}
	})
}
