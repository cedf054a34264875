package studies

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/studies/pgtest"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// wallRunner is fakeRunner taking d of real time per trial (a trial in
// flight while the database is down), counting the trials it ran.
type wallRunner struct {
	fakeRunner
	d   time.Duration
	ran atomic.Int64
}

func (s *wallRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	s.ran.Add(1)
	select {
	case <-time.After(s.d):
	case <-ctx.Done():
		return objective.Result{}, ctx.Err()
	}
	return s.fakeRunner.Run(ctx, t)
}

// TestWorkersRideOutAPostgresRestart: PostgreSQL stopped (pg_ctl stop -m
// immediate) for 15 s and started again on its port during a 4-worker
// study: no worker stops, the trials in flight finish and are written,
// n_trials exact, nothing interrupted, no config twice.
func TestWorkersRideOutAPostgresRestart(t *testing.T) {
	rideOutAnOutage(t, 15*time.Second)
}

// TestWorkersRideOutATwoMinutePostgresOutage: the same for 2 minutes,
// longer than the leases: peers renew theirs before anyone reclaims.
func TestWorkersRideOutATwoMinutePostgresOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2-minute outage")
	}
	rideOutAnOutage(t, 2*time.Minute)
}

func rideOutAnOutage(t *testing.T, outageFor time.Duration) {
	pg := pgtest.StartCluster(t)
	const nTrials, workers = 16, 4
	sp := studySpace(t, nTrials, "")
	runner := &wallRunner{d: 2 * time.Second}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	var done atomic.Int64
	for i := range errs {
		st, err := store.OpenPostgres(t.Context(), pg.URL, "unit", store.Create)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		onEvent := func(e Event) {
			if e.Kind == TrialFinished {
				done.Add(1)
			}
		}
		wg.Go(func() {
			errs[i] = Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: runner, Dir: studydir.Of(t.TempDir(), "unit"), Log: zerolog.Nop(),
				Shared: true, WorkerID: fmt.Sprintf("host%d", i), Lease: 6 * time.Second, OnEvent: onEvent})
		})
	}
	stopMidStudy(t, pg, &done, runner, outageFor)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("worker %d stopped: %v", i, err)
		}
	}
	st, err := store.OpenPostgres(context.Background(), pg.URL, "unit", store.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	checkNothingLost(t, trials, nTrials, runner.ran.Load())
}

// checkNothingLost: exactly nTrials finished, numbers unique (a crashed
// PostgreSQL skips sequence values, so gaps are allowed), none
// running or interrupted, no config twice, every measurement recorded.
func checkNothingLost(t *testing.T, trials []store.Trial, nTrials int, measured int64) {
	t.Helper()
	if got := store.CountDone(trials); got != nTrials {
		t.Errorf("%d trials finished, want exactly %d", got, nTrials)
	}
	seen, launched := map[string]int{}, int64(0)
	for i, tr := range trials {
		if i > 0 && tr.Number <= trials[i-1].Number {
			t.Errorf("trial numbers %d then %d", trials[i-1].Number, tr.Number)
		}
		if tr.State == store.Running || tr.State == store.Interrupted {
			t.Errorf("trial %d left %s (%s): lost to the outage", tr.Number, tr.State, tr.Reason)
		}
		if !tr.BrokeRule() {
			launched++
		}
		if prev, ok := seen[tr.Config.Key()]; ok {
			t.Errorf("trials %d and %d measure the same config %s", prev, tr.Number, tr.Config.Key())
		}
		seen[tr.Config.Key()] = tr.Number
	}
	if measured != launched {
		t.Errorf("%d trials measured, %d recorded as measured: a result was lost or a trial ran twice", measured, launched)
	}
}

// stopMidStudy stops the database once trials are done and others are
// in flight, for outageFor, then starts it again.
func stopMidStudy(t *testing.T, pg *pgtest.Cluster, done *atomic.Int64, runner *wallRunner, outageFor time.Duration) {
	t.Helper()
	for done.Load() < 4 || runner.ran.Load() <= done.Load() {
		time.Sleep(50 * time.Millisecond) // polling the study's progress, not timing logic
	}
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(outageFor) // the outage itself
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
}
