package studies

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/studies/pgtest"
)

func TestUnreachableTellsOutagesFromRefusals(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("study x: record trial 3: %w", io.ErrUnexpectedEOF), true},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}, false},
		{errFull, false},
		{ErrLeaseLost, false},
		{errors.New("some other error"), false},
		{nil, false},
	} {
		if got := unreachable(c.err); got != c.want {
			t.Errorf("unreachable(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// An outage is ridden out until its bound, with backoff between
// attempts; reclaiming waits one lease after the store is back; an
// error the store answered with stops at once.
func TestOutageRidesOutUntilItsBound(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	log := zerolog.Nop()
	down := fmt.Errorf("claim: %w", io.ErrUnexpectedEOF)
	o := outage{bound: 10 * time.Minute}
	if err := o.failed(errors.New("syntax error"), t0, log); err == nil || o.down() {
		t.Fatal("a refused query is ridden out as an outage")
	}
	var waits []time.Duration
	for i := range 6 {
		if err := o.failed(down, t0.Add(time.Duration(i)*time.Minute), log); err != nil {
			t.Fatalf("at %d min: %v, want the outage ridden out", i, err)
		}
		waits = append(waits, o.retryIn())
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 15 * time.Second, 15 * time.Second}; fmt.Sprint(waits) != fmt.Sprint(want) {
		t.Errorf("backoff %v, want %v", waits, want)
	}
	if o.mayReclaim(t0.Add(6*time.Minute), time.Minute) {
		t.Error("reclaims leases while the store is down")
	}
	o.answered(t0.Add(7*time.Minute), log)
	if o.down() || o.mayReclaim(t0.Add(7*time.Minute+59*time.Second), time.Minute) || !o.mayReclaim(t0.Add(8*time.Minute), time.Minute) {
		t.Error("after the store is back, reclaiming must wait exactly one lease")
	}
	if err := o.failed(down, t0.Add(20*time.Minute), log); err != nil {
		t.Fatalf("a new outage: %v", err)
	}
	if o.retryIn() != time.Second {
		t.Error("a new outage does not start its backoff over")
	}
	if err := o.failed(down, t0.Add(30*time.Minute), log); err != nil {
		t.Errorf("at the bound exactly: %v, want still ridden out", err)
	}
	err := o.failed(down, t0.Add(30*time.Minute+time.Second), log)
	if !errors.Is(err, ErrStoreOutage) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("past the bound: %v, want ErrStoreOutage wrapping the cause", err)
	}
}

func TestRenewInBacksOffAfterAFailure(t *testing.T) {
	every := 20 * time.Second
	var got []time.Duration
	wait, ok := every, true
	for _, renewed := range []bool{true, false, false, false, false, false, false, true, false} {
		wait, ok = renewIn(renewed, ok, wait, every), renewed
		got = append(got, wait)
	}
	want := []time.Duration{every, time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, every, every, time.Second}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("renewal waits %v, want %v", got, want)
	}
	if renewIn(false, true, 0, 300*time.Millisecond) != 300*time.Millisecond {
		t.Error("a short lease's retry exceeds its heartbeat interval")
	}
}

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
		st, err := OpenPostgres(t.Context(), pg.URL, "unit", Create)
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
			errs[i] = Run(t.Context(), RunOptions{Space: sp, Store: st, Runner: runner, Dir: DirOf(t.TempDir(), "unit"), Log: zerolog.Nop(),
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
	st, err := OpenPostgres(context.Background(), pg.URL, "unit", ReadOnly)
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
func checkNothingLost(t *testing.T, trials []Trial, nTrials int, measured int64) {
	t.Helper()
	if got := countDone(trials); got != nTrials {
		t.Errorf("%d trials finished, want exactly %d", got, nTrials)
	}
	seen, launched := map[string]int{}, int64(0)
	for i, tr := range trials {
		if i > 0 && tr.Number <= trials[i-1].Number {
			t.Errorf("trial numbers %d then %d", trials[i-1].Number, tr.Number)
		}
		if tr.State == Running || tr.State == Interrupted {
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
