package studies

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/studies/store"
)

// moment says when, around the call that cues it, the store goes down.
type moment int

const (
	notYet   moment = iota
	before          // the call never reaches the store
	lost            // the call is made, its answer lost: the store dies as it commits
	answered        // the call is made and answered; the store dies right after
)

// outageStore is a study's store that goes down on cue, once, for
// lasts of the synctest bubble's time: every call meanwhile fails as a
// stopped PostgreSQL's (connection refused). The cue sees each call by
// kind ("trials", "reclaim", "claim", "finish", "renew") and count.
type outageStore struct {
	*store.Store
	cue   func(op string, n int) moment
	lasts time.Duration

	mu     sync.Mutex
	calls  map[string]int
	began  time.Time // the outage's start (zero: not yet)
	failed int       // calls refused during it
}

var errRefused = &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}

// call runs f as the store's answer to op, unless the store is down.
func (s *outageStore) call(op string, f func() error) error {
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[op]++
	m := notYet
	if s.began.IsZero() {
		if m = s.cue(op, s.calls[op]); m != notYet {
			s.began = time.Now()
		}
	} else if time.Since(s.began) < s.lasts {
		s.failed++
		s.mu.Unlock()
		return errRefused
	}
	s.mu.Unlock()
	switch m {
	case before:
		return errRefused
	case lost:
		if err := f(); err != nil {
			return err
		}
		return errRefused
	}
	return f()
}

func (s *outageStore) Trials(ctx context.Context) (ts []store.Trial, err error) {
	err = s.call("trials", func() error { ts, err = s.Store.Trials(ctx); return err })
	return ts, err
}

func (s *outageStore) ReclaimExpired(ctx context.Context, now time.Time) (ts []store.Trial, err error) {
	err = s.call("reclaim", func() error { ts, err = s.Store.ReclaimExpired(ctx, now); return err })
	return ts, err
}

func (s *outageStore) ClaimNext(ctx context.Context, t *store.Trial, until time.Time, caps store.Caps) error {
	return s.call("claim", func() error { return s.Store.ClaimNext(ctx, t, until, caps) })
}

func (s *outageStore) FinishLeased(ctx context.Context, t *store.Trial) error {
	return s.call("finish", func() error { return s.Store.FinishLeased(ctx, t) })
}

func (s *outageStore) FinishLeasedAll(ctx context.Context, ts []*store.Trial) (lost []error, err error) {
	err = s.call("finish", func() error { lost, err = s.Store.FinishLeasedAll(ctx, ts); return err })
	return lost, err
}

func (s *outageStore) Renew(ctx context.Context, number int, worker string, until time.Time) error {
	return s.call("renew", func() error { return s.Store.Renew(ctx, number, worker, until) })
}

// at cues the outage at the nth call of op.
func at(op string, n int, m moment) func(string, int) moment {
	return func(o string, k int) moment {
		if o == op && k == n {
			return m
		}
		return notYet
	}
}

// A store outage at any moment of a study — between two trials with
// nothing in flight, during a claim (refused, or made with its answer
// lost), during a result write (refused, or written with its answer
// lost), during a lease renewal — is ridden out: the study ends with
// exactly n_trials, nothing left running or interrupted, every measured
// trial recorded once and nothing recorded that was not measured, for
// `worker` and `run --storage` (shared, one worker or several) and a run
// holding the study's lock (one trial at a time, no lease).
func TestAStoreOutageAtAnyMomentIsRiddenOut(t *testing.T) {
	const nTrials = 8
	kinds := []struct {
		name    string
		shared  bool
		workers int
	}{
		{"worker, one trial at a time", true, 1},
		{"worker, three at once", true, 3},
		{"run holding the lock", false, 1},
	}
	moments := []struct {
		name string
		cue  func(string, int) moment
		// leased: only workers with leases (and peers) renew them and
		// read the study before each claim.
		leased bool
	}{
		{"between trials", at("finish", 3, answered), false},
		{"claim refused", at("claim", 4, before), false},
		{"claim made, answer lost", at("claim", 4, lost), false},
		{"result write refused", at("finish", 2, before), false},
		{"result written, answer lost", at("finish", 2, lost), false},
		{"lease renewal refused", at("renew", 2, before), true},
		{"reading the study", at("trials", 3, before), true},
		{"reading the study at the start", at("trials", 1, before), true},
	}
	for _, k := range kinds {
		for _, m := range moments {
			if m.leased && !k.shared {
				continue
			}
			t.Run(k.name+"/"+m.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					sp := studySpace(t, nTrials, "")
					st, dir := openStore(t)
					db := &outageStore{Store: st, cue: m.cue, lasts: 3 * time.Minute}
					r := &slowRunner{}
					learnt := 0
					err := Run(t.Context(), RunOptions{Space: sp, Store: st, db: db, Runner: r, Dir: dir, Log: zerolog.Nop(),
						Shared: k.shared, Workers: k.workers, WorkerID: "w", Lease: time.Minute, StoreOutage: 10 * time.Minute,
						OnEvent: func(e Event) {
							if e.Kind == TrialFinished {
								learnt++
							}
						}})
					if err != nil {
						t.Fatalf("the study stopped: %v", err)
					}
					if db.began.IsZero() || db.failed == 0 {
						t.Fatalf("no outage: the cue never came or no call met it (%v)", db.calls)
					}
					trials, err := st.Trials(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					checkNothingLost(t, trials, nTrials, int64(len(r.calls)))
					if learnt != len(trials) {
						t.Errorf("%d trials finished in the loop's eyes, %d recorded: a written result was taken for a lost one", learnt, len(trials))
					}
				})
			})
		}
	}
}

// A store that goes down between two trials, nothing in flight, and
// stays down past --store-outage stops the study with the bound named —
// not before the bound, and never as a study that ended (nil, exit 0)
// with trials left.
func TestAnOutageBetweenTrialsStopsOnlyPastTheBound(t *testing.T) {
	for _, shared := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			sp := studySpace(t, 8, "")
			st, dir := openStore(t)
			db := &outageStore{Store: st, cue: at("finish", 3, answered), lasts: time.Hour}
			r := &slowRunner{}
			err := Run(t.Context(), RunOptions{Space: sp, Store: st, db: db, Runner: r, Dir: dir, Log: zerolog.Nop(),
				Shared: shared, Workers: 1, WorkerID: "w", Lease: time.Minute, StoreOutage: 5 * time.Minute})
			if !errors.Is(err, store.ErrStoreOutage) {
				t.Fatalf("shared %v: the study ended with %v, want the outage past its bound", shared, err)
			}
			if held := time.Since(db.began); held < 5*time.Minute || held > 5*time.Minute+20*time.Second {
				t.Errorf("shared %v: stopped %s into the outage, want just past its 5m bound", shared, held)
			}
			trials, err := st.Trials(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(trials) != 3 || int64(len(r.calls)) != countLaunched(trials) {
				t.Errorf("shared %v: %d trials recorded, %d measured, want the 3 written before the outage, each measured once", shared, len(trials), len(r.calls))
			}
		})
	}
}

// countLaunched counts the trials that ran (a config breaking a rule
// never does).
func countLaunched(ts []store.Trial) int64 {
	n := int64(0)
	for _, t := range ts {
		if !t.BrokeRule() {
			n++
		}
	}
	return n
}

// A store that goes down for good once the study's last result is
// written leaves nothing to wait for: the study ends done, at once,
// not past the outage bound with an error.
func TestAnOutageAfterTheLastResultEndsTheStudyDone(t *testing.T) {
	for _, shared := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			const nTrials = 6
			sp := studySpace(t, nTrials, "")
			st, dir := openStore(t)
			last := func(op string, _ int) moment {
				ts, err := st.Trials(context.Background())
				if op == "finish" && err == nil && store.CountDone(ts) == nTrials-1 {
					return answered
				}
				return notYet
			}
			db := &outageStore{Store: st, cue: last, lasts: time.Hour}
			err := Run(t.Context(), RunOptions{Space: sp, Store: st, db: db, Runner: &slowRunner{}, Dir: dir, Log: zerolog.Nop(),
				Shared: shared, Workers: 1, WorkerID: "w", Lease: time.Minute, StoreOutage: 5 * time.Minute})
			if err != nil {
				t.Fatalf("shared %v: the study ended with %v, want done", shared, err)
			}
			if db.began.IsZero() {
				t.Fatalf("shared %v: the store never went down", shared)
			}
			if held := time.Since(db.began); held >= 5*time.Minute {
				t.Errorf("shared %v: the study waited %s for a store it no longer needed", shared, held)
			}
			ts, _ := st.Trials(context.Background())
			if got := store.CountDone(ts); got != nTrials {
				t.Errorf("shared %v: %d trials done, want %d", shared, got, nTrials)
			}
		})
	}
}
