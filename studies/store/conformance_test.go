package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/pgtest"
)

// backend opens one study of one kind of store, as often as a test asks:
// the SQLite study.db and a PostgreSQL schema must behave alike, so every
// case of the conformance suite runs against both (restic's backend
// tests are the model).
type backend struct {
	name string
	// open opens the study in mode.
	open func(t *testing.T, mode Mode) *Store
	// raw is a plain connection to the study's database (its schema, for
	// PostgreSQL), created empty, for writing old formats by hand.
	raw func(t *testing.T) *sql.DB
	// first is migration 0 → 1 in the backend's dialect.
	first string
	// processes says several processes open the study, each with its own
	// handle (PostgreSQL); a study.db is held by one process (the
	// directory lock), whose workers share its handle.
	processes bool
}

// TestStoreConformance runs every case against SQLite and against a real
// PostgreSQL started by pgtest (which fails instead of skipping in CI).
func TestStoreConformance(t *testing.T) {
	url := pgtest.Start(t)
	cases := []struct {
		name string
		run  func(t *testing.T, b backend)
	}{
		{"claims are checked", conformClaims},
		{"racing claims of one config", conformClaimRace},
		{"leases are renewed by their worker only", conformLeases},
		{"expired leases are reclaimed", conformReclaim},
		{"a claim without a lease", conformUnleased},
		{"repeat claims", conformRepeat},
		{"noise, confirm and revisit claims", conformRemeasure},
		{"budget counts as CountDone does", conformBudget},
		{"migrations from format 1", conformMigrations},
		{"read-only readers", conformReadOnly},
		{"results written together", conformFinishAll},
		{"a simulated trial's intervals", conformIntervals},
	}
	for i, c := range cases {
		for _, b := range []backend{sqliteBackend(t), postgresBackend(url, "conform"+string(rune('a'+i)))} {
			t.Run(b.name+"/"+c.name, func(t *testing.T) { c.run(t, b) })
		}
	}
}

func sqliteBackend(t *testing.T) backend {
	return backend{name: "sqlite", first: migrations[0], open: func(t *testing.T, mode Mode) *Store {
		st, err := Open(context.Background(), sqlitePath(t), mode)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}, raw: func(t *testing.T) *sql.DB {
		db, err := sql.Open("sqlite", sqlitePath(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}}
}

// sqlitePaths gives each test its own study.db, the same one every time
// that test asks.
var sqlitePaths sync.Map

func sqlitePath(t *testing.T) string {
	if p, ok := sqlitePaths.Load(t.Name()); ok {
		return p.(string)
	}
	p := filepath.Join(t.TempDir(), "study.db")
	sqlitePaths.Store(t.Name(), p)
	return p
}

func postgresBackend(url, study string) backend {
	return backend{name: "postgres", first: pgFirstMigration, processes: true, open: func(t *testing.T, mode Mode) *Store {
		st, err := OpenPostgres(context.Background(), url, study, mode)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}, raw: func(t *testing.T) *sql.DB {
		db, _, err := openPostgresDB(url, "", false)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`CREATE SCHEMA ` + pgSchema(study)); err != nil {
			t.Fatal(err)
		}
		sdb, _, err := openPostgresDB(url, pgSchema(study), false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sdb.Close() })
		return sdb
	}}
}

var t0 = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func trialOf(origin, worker string, a int64) Trial {
	return Trial{Config: space.Config{"a": a}, Origin: origin, Worker: worker, Start: t0}
}

// measurements is the cap on a config's re-measurements the tests claim
// under (a study passes search.MaxMeasurements).
const measurements = 3

// claim claims tr for a minute in a study of nTrials trials.
func claim(st *Store, tr *Trial, nTrials, repeat int) error {
	return st.ClaimNext(context.Background(), tr, t0.Add(time.Minute), Caps{Trials: nTrials, Repeat: repeat, Measurements: measurements})
}

func finishAs(t *testing.T, st *Store, tr *Trial, state State, f *engines.Failure) {
	t.Helper()
	tr.State, tr.Failure, tr.End = state, f, t0.Add(time.Minute)
	if err := st.FinishLeased(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
}

func conformClaims(t *testing.T, b backend) {
	st := b.open(t, Create)
	base := trialOf("baseline", "w/0", 0)
	mustClaim(t, st, &base, 3, 0)
	if again := trialOf("baseline", "w/1", 9); !errors.Is(claim(st, &again, 3, 0), ErrTaken) {
		t.Error("a second baseline was claimed")
	}
	s1 := trialOf("sampler", "w/0", 1)
	mustClaim(t, st, &s1, 3, 0)
	if dup := trialOf("enqueued", "w/1", 1); !errors.Is(claim(st, &dup, 3, 0), ErrTaken) {
		t.Error("a config already running was claimed again")
	}
	finishAs(t, st, &s1, Interrupted, nil)
	retry := trialOf("sampler", "w/1", 1)
	retry.RetryOf = s1.Number
	mustClaim(t, st, &retry, 3, 0)
	twice := trialOf("sampler", "w/2", 1)
	twice.RetryOf = s1.Number
	if !errors.Is(claim(st, &twice, 3, 0), ErrTaken) {
		t.Error("an interrupted trial was retried twice")
	}
	s2 := trialOf("sampler", "w/2", 2)
	mustClaim(t, st, &s2, 3, 0)
	if full := trialOf("sampler", "w/3", 3); !errors.Is(claim(st, &full, 3, 0), ErrFull) {
		t.Error("a fourth trial was claimed in a study of 3 (the interrupted one does not count, the running ones do)")
	}
	trials, err := st.Trials(context.Background())
	if err != nil || len(trials) != 4 {
		t.Fatalf("%d trials (%v), want the 4 claimed", len(trials), err)
	}
	for i, tr := range trials {
		if tr.Number != i+1 || (tr.State == Running && tr.Worker == "") {
			t.Errorf("trial %d: number %d, %s by %q", i, tr.Number, tr.State, tr.Worker)
		}
	}
}

func mustClaim(t *testing.T, st *Store, tr *Trial, nTrials, repeat int) {
	t.Helper()
	if err := claim(st, tr, nTrials, repeat); err != nil {
		t.Fatalf("claim %s %v: %v", tr.Origin, tr.Config, err)
	}
	if tr.Number == 0 || tr.State != Running {
		t.Fatalf("claimed trial has number %d, state %s", tr.Number, tr.State)
	}
}

// conformClaimRace: workers claim one config at once (each with its own
// handle where workers are processes); exactly one wins, the rest see
// ErrTaken.
func conformClaimRace(t *testing.T, b backend) {
	first := b.open(t, Create)
	const n = 4
	stores := make([]*Store, n)
	for i := range stores {
		stores[i] = first
		if b.processes {
			stores[i] = b.open(t, ReadWrite)
		}
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, st := range stores {
		wg.Go(func() {
			tr := trialOf("sampler", "w/"+string(rune('0'+i)), 7)
			errs[i] = claim(st, &tr, 100, 0)
		})
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrTaken):
			t.Errorf("racing claim: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d workers claimed the same config, want 1", won)
	}
}

func conformLeases(t *testing.T, b backend) {
	ctx := context.Background()
	st := b.open(t, Create)
	tr := trialOf("sampler", "w/0", 1)
	mustClaim(t, st, &tr, 10, 0)
	if err := st.Renew(ctx, tr.Number, "w/0", t0.Add(2*time.Minute)); err != nil {
		t.Fatalf("its worker renewing: %v", err)
	}
	if err := st.Renew(ctx, tr.Number, "w/1", t0.Add(3*time.Minute)); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("another worker renewing: %v, want ErrLeaseLost", err)
	}
	other := tr
	other.Worker, other.State = "w/1", Complete
	if err := st.FinishLeased(ctx, &other); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("another worker finishing: %v, want ErrLeaseLost", err)
	}
	finishAs(t, st, &tr, Complete, nil)
	if err := st.Renew(ctx, tr.Number, "w/0", t0.Add(4*time.Minute)); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("renewing a finished trial: %v, want ErrLeaseLost", err)
	}
}

func conformReclaim(t *testing.T, b backend) {
	ctx := context.Background()
	st := b.open(t, Create)
	tr := trialOf("sampler", "dead-host/0", 1)
	mustClaim(t, st, &tr, 1, 0)
	if lost, err := st.ReclaimExpired(ctx, t0.Add(30*time.Second)); err != nil || len(lost) != 0 {
		t.Fatalf("reclaimed %v (%v) before the lease expired", lost, err)
	}
	lost, err := st.ReclaimExpired(ctx, t0.Add(time.Minute))
	if err != nil || len(lost) != 1 || lost[0].State != Interrupted || !strings.Contains(lost[0].Reason, "dead-host/0") {
		t.Fatalf("reclaimed %+v (%v), want the trial interrupted naming its worker", lost, err)
	}
	if again, err := st.ReclaimExpired(ctx, t0.Add(time.Hour)); err != nil || len(again) != 0 {
		t.Errorf("reclaimed %v (%v) a second time", again, err)
	}
	late := tr
	late.State = Complete
	if err := st.FinishLeased(ctx, &late); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("the dead worker finishing after the reclaim: %v, want ErrLeaseLost", err)
	}
	retry := trialOf("sampler", "w/1", 1)
	retry.RetryOf = tr.Number
	mustClaim(t, st, &retry, 1, 0) // the interrupted trial left the budget free
}

// conformUnleased: one trial at a time under the study's lock is claimed
// with the same checks but no lease and no worker; no expiry reclaims
// it, a leased worker cannot finish it, and its own finish writes it.
func conformUnleased(t *testing.T, b backend) {
	ctx := context.Background()
	st := b.open(t, Create)
	tr := trialOf("sampler", "", 1)
	if err := st.ClaimNext(ctx, &tr, time.Time{}, Caps{Trials: 2, Measurements: measurements}); err != nil || tr.State != Running {
		t.Fatalf("unleased claim: %v, state %s", err, tr.State)
	}
	if dup := trialOf("sampler", "", 1); !errors.Is(st.ClaimNext(ctx, &dup, time.Time{}, Caps{Trials: 2, Measurements: measurements}), ErrTaken) {
		t.Error("an unleased claim skipped the duplicate check")
	}
	if lost, err := st.ReclaimExpired(ctx, t0.Add(24*time.Hour)); err != nil || len(lost) != 0 {
		t.Errorf("reclaimed %v (%v): an unleased trial has no lease to expire", lost, err)
	}
	other := tr
	other.Worker, other.State = "w/1", Complete
	if err := st.FinishLeased(ctx, &other); !errors.Is(err, ErrLeaseLost) {
		t.Errorf("a worker finishing the lock holder's trial: %v, want ErrLeaseLost", err)
	}
	finishAs(t, st, &tr, Complete, nil)
	trials, err := st.Trials(ctx)
	if err != nil || len(trials) != 1 || trials[0].State != Complete || trials[0].Worker != "" {
		t.Errorf("trials %+v (%v), want one complete trial naming no worker", trials, err)
	}
}

func conformRepeat(t *testing.T, b backend) {
	st := b.open(t, Create)
	for i := range 3 {
		tr := trialOf("repeat", "w/0", 5)
		if i == 0 {
			tr.Origin = "sampler"
		}
		mustClaim(t, st, &tr, 10, 3)
	}
	if fourth := trialOf("repeat", "w/1", 5); !errors.Is(claim(st, &fourth, 10, 3), ErrTaken) {
		t.Error("a config was measured a fourth time in a --repeat 3 study")
	}
	reuse := trialOf("repeat", "w/1", 6)
	reuse.ReusedFrom = 1
	mustClaim(t, st, &reuse, 10, 1)
	if measured := trialOf("repeat", "w/1", 6); claim(st, &measured, 10, 1) != nil {
		t.Error("a reuse counted as a measurement of its config")
	}
}

// conformBudget: the store's n_trials check counts exactly what CountDone
// counts, plus what is running.
func conformBudget(t *testing.T, b backend) {
	st := b.open(t, Create)
	oom := &engines.Failure{Class: engines.OOM, Message: "out of memory"}
	outcomes := []struct {
		state State
		f     *engines.Failure
	}{{Complete, nil}, {Failed, oom}, {Infeasible, oom}, {Infeasible, nil}, {Interrupted, nil}, {Pruned, nil}, {Running, nil}}
	for i, o := range outcomes {
		tr := trialOf("sampler", "w/0", int64(i))
		mustClaim(t, st, &tr, 100, 0)
		if o.state != Running {
			finishAs(t, st, &tr, o.state, o.f)
		}
	}
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	busy := CountDone(trials) + 1 // the running one
	if busy != 5 {
		t.Fatalf("CountDone+running = %d, want 5 (complete, failed, infeasible by the engine, pruned, running)", busy)
	}
	if tr := trialOf("sampler", "w/1", 50); !errors.Is(claim(st, &tr, busy, 0), ErrFull) {
		t.Errorf("claimed with %d trials counted in a study of %d", busy, busy)
	}
	if tr := trialOf("sampler", "w/1", 51); claim(st, &tr, busy+1, 0) != nil {
		t.Errorf("refused with %d trials counted in a study of %d", busy, busy+1)
	}
}

// conformMigrations: a study written in format 1 opens read-only as it
// is, then a writer migrates it to the current format keeping its trials.
func conformMigrations(t *testing.T, b backend) {
	ctx := context.Background()
	db := b.raw(t)
	for _, q := range []string{b.first,
		`INSERT INTO meta(key, value) VALUES('schema_version', '1')`,
		`INSERT INTO trials(state, origin, config, config_key, metrics, started_at, ended_at) VALUES('complete', 'baseline', '{"a":1}', 'a=1', '{"chat":{"throughput":2.5}}', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	ro := b.open(t, ReadOnly)
	old, err := ro.Trials(ctx)
	if err != nil || len(old) != 1 || old[0].Metrics["chat"]["throughput"] != 2.5 {
		t.Fatalf("format 1 read-only: %+v (%v)", old, err)
	}
	if v, _ := ro.Meta(ctx, "schema_version"); v != "1" {
		t.Errorf("a reader migrated the study to %q", v)
	}
	st := b.open(t, ReadWrite)
	if v, _ := st.Meta(ctx, "schema_version"); v != strconv.Itoa(schemaVersion) {
		t.Errorf("schema_version %q after a writer opened it, want %d", v, schemaVersion)
	}
	tr := trialOf("sampler", "w/0", 2)
	mustClaim(t, st, &tr, 10, 0) // the new columns are there
	trials, err := st.Trials(ctx)
	if err != nil || len(trials) != 2 || trials[0].Origin != "baseline" || trials[1].Worker != "w/0" {
		t.Errorf("migrated study: %+v (%v)", trials, err)
	}
}

// conformReadOnly: a reader sees what writers committed and writes
// nothing.
func conformReadOnly(t *testing.T, b backend) {
	ctx := context.Background()
	st := b.open(t, Create)
	tr := trialOf("baseline", "w/0", 1)
	mustClaim(t, st, &tr, 10, 0)
	ro := b.open(t, ReadOnly)
	trials, err := ro.Trials(ctx)
	if err != nil || len(trials) != 1 || trials[0].State != Running {
		t.Fatalf("reader: %+v (%v), want the running trial", trials, err)
	}
	if err := ro.SetMeta(ctx, "k", "v"); err == nil {
		t.Error("a reader stored meta")
	}
	if next := trialOf("sampler", "w/1", 2); claim(ro, &next, 10, 0) == nil {
		t.Error("a reader claimed a trial")
	}
	if lost, err := ro.ReclaimExpired(ctx, t0.Add(time.Hour)); err == nil && len(lost) > 0 {
		t.Error("a reader reclaimed a lease")
	}
	if v, _ := st.Meta(ctx, "k"); v != "" {
		t.Errorf("meta written through a reader: %q", v)
	}
}

// conformIntervals: a simulated trial's stated intervals come back as
// written, one with a bound that is not finite dropped (absent, never
// NaN), and a trial without any reads none.
func conformIntervals(t *testing.T, b backend) {
	st := b.open(t, Create)
	sim, measured := trialOf("sampler", "", 1), trialOf("sampler", "", 2)
	for _, tr := range []*Trial{&sim, &measured} {
		if err := claim(st, tr, 10, 1); err != nil {
			t.Fatal(err)
		}
	}
	iv := Interval{Lo80: 90, Hi80: 110, Lo95: 80, Hi95: 125}
	sim.Intervals = map[string]map[string]Interval{
		"chat": {"p99_ttft_ms": iv, "mean_ttft_ms": {Lo80: math.NaN(), Hi80: 1, Lo95: 0, Hi95: 2}},
		"long": {"mean_itl_ms": {Lo80: 1, Hi80: math.Inf(1), Lo95: 0, Hi95: 2}},
	}
	finishAs(t, st, &sim, Complete, nil)
	finishAs(t, st, &measured, Complete, nil)
	ts, err := b.open(t, ReadOnly).Trials(context.Background())
	if err != nil || len(ts) != 2 {
		t.Fatalf("%d trials, %v", len(ts), err)
	}
	if want := map[string]map[string]Interval{"chat": {"p99_ttft_ms": iv}}; !reflect.DeepEqual(ts[0].Intervals, want) {
		t.Errorf("intervals %+v, want %+v", ts[0].Intervals, want)
	}
	if ts[1].Intervals != nil {
		t.Errorf("a measured trial reads intervals %+v", ts[1].Intervals)
	}
}
