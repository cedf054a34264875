package studies

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// slowRunner is fakeRunner's landscape with a duration per config (in
// the synctest bubble's fake time), safe for several workers at once.
type slowRunner struct {
	mu       sync.Mutex
	inFlight int
	max      int
	calls    []space.Config
	// onCall, when set, runs at the start of call number n (1-based).
	onCall func(n int)
}

func (r *slowRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	r.mu.Lock()
	r.inFlight++
	r.max = max(r.max, r.inFlight)
	r.calls = append(r.calls, t.Config)
	n, hook := len(r.calls), r.onCall
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	if hook != nil {
		hook(n)
	}
	mr, _ := t.Config.Int("max_running")
	select {
	case <-time.After(time.Duration(mr) * time.Minute / 8):
	case <-ctx.Done():
		return objective.Result{}, ctx.Err()
	}
	return (&fakeRunner{}).Run(ctx, t)
}

func runParallelStudy(t *testing.T, r *slowRunner, nTrials, workers int) []store.Trial {
	t.Helper()
	sp := studySpace(t, nTrials, "")
	st, dir := openStore(t)
	err := Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: r, Dir: dir, Log: zerolog.Nop(), Workers: workers, WorkerID: "w", Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return trials
}

func TestParallelRunIsExactAndNeverRepeatsAConfig(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &slowRunner{}
		trials := runParallelStudy(t, r, 12, 4)
		if got := store.CountDone(trials); got != 12 {
			t.Errorf("%d trials count toward n_trials, want exactly 12", got)
		}
		if r.max != 4 {
			t.Errorf("at most %d trials ran at once, want 4", r.max)
		}
		seen := map[string]int{}
		for i, tr := range trials {
			if tr.Number != i+1 {
				t.Errorf("trial %d numbered %d: numbers must be unique and dense", i+1, tr.Number)
			}
			if tr.State == store.Running || tr.State == store.Interrupted {
				t.Errorf("trial %d left %s", tr.Number, tr.State)
			}
			if !strings.HasPrefix(tr.Worker, "w/") {
				t.Errorf("trial %d worker %q, want w/<slot>", tr.Number, tr.Worker)
			}
			if prev, ok := seen[tr.Config.Key()]; ok {
				t.Errorf("trials %d and %d measure the same config %s", prev, tr.Number, tr.Config.Key())
			}
			seen[tr.Config.Key()] = tr.Number
		}
		for _, tr := range trials[1:] {
			if tr.Start.Before(trials[0].End) {
				t.Errorf("trial %d started at %s, before the baseline finished at %s", tr.Number, tr.Start, trials[0].End)
			}
		}
	})
}

func TestOneWorkerAtATimeKeepsTheSequentialOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		seq := runParallelStudy(t, &slowRunner{}, 8, 1)
		if got := store.CountDone(seq); got != 8 {
			t.Fatalf("%d trials done, want 8", got)
		}
		for _, tr := range seq {
			if tr.Worker != "" {
				t.Errorf("trial %d of a one-worker study carries worker %q: it takes no lease", tr.Number, tr.Worker)
			}
		}
	})
}

func TestExpiredLeaseIsReclaimedAndRetriedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sp := studySpace(t, 10, "")
		st, dir := openStore(t)
		ghostCfg := sp.WithTargetEngine(space.Config{"max_running": int64(16), "mem_fraction": 0.8, "dp": int64(1)})
		ghost := store.Trial{Config: ghostCfg, Origin: "sampler", Worker: "dead-host/0"}
		r := &slowRunner{onCall: func(n int) {
			if n != 2 {
				return
			}
			// Another worker claims a trial and dies (kill -9): its lease
			// is never renewed.
			ghost.Start = time.Now()
			if err := st.ClaimNext(context.Background(), &ghost, time.Now().Add(time.Second), store.Caps{Trials: 10, Measurements: search.MaxMeasurements}); err != nil {
				t.Error(err)
			}
		}}
		err := Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: r, Dir: dir, Log: zerolog.Nop(), Workers: 3, WorkerID: "w", Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		trials, err := st.Trials(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := store.CountDone(trials); got != 10 {
			t.Errorf("%d trials count toward n_trials, want exactly 10", got)
		}
		g := trials[ghost.Number-1]
		if g.State != store.Interrupted || !strings.Contains(g.Reason, "dead-host/0") {
			t.Errorf("dead worker's trial: %s %q, want interrupted naming the worker", g.State, g.Reason)
		}
		retries := 0
		for _, tr := range trials {
			if tr.RetryOf == ghost.Number {
				retries++
				if tr.Config.Key() != ghostCfg.Key() || tr.State != store.Complete {
					t.Errorf("retry %d: %s %s, want the dead trial's config, complete", tr.Number, tr.Config.Key(), tr.State)
				}
			}
		}
		if retries != 1 {
			t.Errorf("dead trial retried %d times, want once", retries)
		}
	})
}

func TestLeaseIsRenewedUntilItIsReclaimed(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	tr := store.Trial{Config: space.Config{"a": int64(1)}, Origin: "sampler", Start: t0, Worker: "w/0"}
	if err := st.ClaimNext(ctx, &tr, t0.Add(time.Minute), store.Caps{Trials: 1, Measurements: search.MaxMeasurements}); err != nil {
		t.Fatal(err)
	}
	if err := st.Renew(ctx, tr.Number, "w/0", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if lost, err := st.ReclaimExpired(ctx, t0.Add(90*time.Second)); err != nil || len(lost) != 0 {
		t.Fatalf("reclaimed %v (%v) before the renewed lease expired", lost, err)
	}
	if err := st.Renew(ctx, tr.Number, "w/1", t0.Add(3*time.Minute)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("another worker renewed the lease: %v, want ErrLeaseLost", err)
	}
	lost, err := st.ReclaimExpired(ctx, t0.Add(2*time.Minute))
	if err != nil || len(lost) != 1 || lost[0].State != store.Interrupted {
		t.Fatalf("reclaimed %v (%v), want the trial as interrupted", lost, err)
	}
	if err := st.Renew(ctx, tr.Number, "w/0", t0.Add(3*time.Minute)); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("renewing a reclaimed trial: %v, want ErrLeaseLost", err)
	}
	tr.State, tr.End = store.Complete, t0.Add(3*time.Minute)
	if err := st.FinishLeased(ctx, &tr); !errors.Is(err, store.ErrLeaseLost) {
		t.Errorf("finishing a reclaimed trial: %v, want ErrLeaseLost", err)
	}
	all, _ := st.Trials(ctx)
	if all[0].State != store.Interrupted {
		t.Errorf("a reclaimed trial's record became %s, want it kept interrupted", all[0].State)
	}
}

func TestHeartbeatKeepsLongTrialsLeased(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Trials run up to 32 minutes against a one-minute lease: without
		// heartbeats every one would be reclaimed.
		trials := runParallelStudy(t, &slowRunner{}, 10, 3)
		for _, tr := range trials {
			if tr.State == store.Interrupted {
				t.Errorf("trial %d was reclaimed while its worker was alive: %s", tr.Number, tr.Reason)
			}
		}
	})
}
