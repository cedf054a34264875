package studies

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// sleepyRunner is fakeRunner's landscape, each trial lasting took.
type sleepyRunner struct {
	took time.Duration
	fakeRunner
}

func (r *sleepyRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	time.Sleep(r.took)
	return r.fakeRunner.Run(ctx, t)
}

// countingStore counts the result writes, one by one and together.
type countingStore struct {
	*store.Store
	mu      sync.Mutex
	singles int
	batches []int
}

func (s *countingStore) FinishLeased(ctx context.Context, t *store.Trial) error {
	s.mu.Lock()
	s.singles++
	s.mu.Unlock()
	return s.Store.FinishLeased(ctx, t)
}

func (s *countingStore) FinishLeasedAll(ctx context.Context, ts []*store.Trial) ([]error, error) {
	s.mu.Lock()
	s.batches = append(s.batches, len(ts))
	s.mu.Unlock()
	return s.Store.FinishLeasedAll(ctx, ts)
}

// Results that workers hand back while the loop is busy are written in
// one transaction when the loop comes back to them, and none waits for
// another: the first result the loop takes alone is written at once.
func TestFinishedTrialsInHandAreWrittenInOneTransaction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sp := studySpace(t, 8, "")
		st, dir := openStore(t)
		db := &countingStore{Store: st}
		sampler, err := samplers.New(context.Background(), "random", sp, 1, nil, zerolog.Nop(), search.Options{})
		if err != nil {
			t.Fatal(err)
		}
		l := &loop{RunOptions: RunOptions{Space: sp, Store: st, db: db, Runner: &sleepyRunner{took: time.Second}, Dir: dir, Repeat: 1, Now: time.Now, OnEvent: func(Event) {},
			Log: zerolog.Nop(), Workers: 3, WorkerID: "w", Lease: time.Minute}, sampler: sampler, leased: true, started: time.Now()}
		l.defaults()
		p := newPool(l)
		ctx := t.Context()
		for i, mr := range []int64{16, 32, 64} {
			cfg := sp.WithTargetEngine(space.Config{"max_running": mr, "mem_fraction": 0.8, "dp": int64(1)})
			if err := p.start(ctx, next{cfg: cfg, origin: "sampler"}); err != nil {
				t.Fatalf("start %d: %v", i, err)
			}
		}
		first := <-p.done // the three finish together
		synctest.Wait()   // the other two wait to hand theirs back
		if err := p.collect(ctx, p.drain(first)...); err != nil {
			t.Fatal(err)
		}
		if err := p.awaitWrites(ctx); err != nil { // spare workers write behind the loop
			t.Fatal(err)
		}
		if db.singles != 0 || len(db.batches) != 1 || db.batches[0] != 3 {
			t.Errorf("wrote %d results one by one and batches of %v, want one batch of 3", db.singles, db.batches)
		}
		if p.inFlight != 0 {
			t.Errorf("%d trials still in flight", p.inFlight)
		}
		trials, err := st.Trials(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trials {
			if tr.State != store.Complete {
				t.Errorf("trial %d is %s, want complete", tr.Number, tr.State)
			}
		}
		// A result alone is written alone, at once.
		cfg := sp.WithTargetEngine(space.Config{"max_running": int64(128), "mem_fraction": 0.8, "dp": int64(1)})
		if err := p.start(ctx, next{cfg: cfg, origin: "sampler"}); err != nil {
			t.Fatal(err)
		}
		if err := p.collect(ctx, p.drain(<-p.done)...); err != nil {
			t.Fatal(err)
		}
		if err := p.awaitWrites(ctx); err != nil {
			t.Fatal(err)
		}
		if db.singles != 1 || len(db.batches) != 1 {
			t.Errorf("a lone result: %d single writes, batches %v; want it written alone", db.singles, db.batches)
		}
	})
}
