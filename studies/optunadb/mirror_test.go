package optunadb

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/studies/store"
)

func count(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// A resumed run or a second export rewrites trials in place: the same
// rows, never a duplicate; a trial that was running when mirrored is
// updated when it finishes; a value that widens a knob's domain rewrites
// every trial's distribution so Optuna sees one per knob.
func TestMirrorUpsertsAndWidens(t *testing.T) {
	ctx := context.Background()
	sp, trials := fixtureSpaceParsed(t), fixtureTrials()
	target, _ := ParseURL("sqlite:///" + filepath.Join(t.TempDir(), "o.db"))
	w, err := Open(ctx, target, sp)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	running, dead := trials[8], trials[7]
	dead.State = store.Running // left running by a killed run, then recorded interrupted
	recovered := []store.Trial{trials[0], trials[1], trials[7], running}
	m, err := NewMirror(ctx, w, []store.Trial{trials[0], trials[1], dead, running}, func(context.Context) ([]store.Trial, error) { return recovered, nil })
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, w.db.sql, `SELECT count(*) FROM trials WHERE number = 8 AND state = 'RUNNING'`); got != 1 {
		t.Fatal("the dead trial was not first written as running")
	}
	for _, tr := range trials[2:7] { // trial 6 has max_running 600, outside 16..512
		if err := m.TrialFinished(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	finished := running
	finished.State, finished.End = store.Complete, running.Start.Add(60e9)
	finished.Metrics = trials[1].Metrics
	if err := m.TrialFinished(ctx, finished); err != nil {
		t.Fatal(err)
	}
	db := w.db.sql
	if got := count(t, db, `SELECT count(*) FROM trials WHERE number = 8 AND state = 'FAIL'`); got != 1 {
		t.Error("the trial recorded interrupted after the mirror started is still running in Optuna")
	}
	if n := count(t, db, `SELECT count(*) FROM trials`); n != len(trials) {
		t.Errorf("%d trial rows, want %d", n, len(trials))
	}
	if got := count(t, db, `SELECT count(*) FROM trials WHERE number = 9 AND state = 'COMPLETE' AND datetime_complete IS NOT NULL`); got != 1 {
		t.Error("trial 9 was not updated in place when it finished")
	}
	if n := count(t, db, `SELECT count(DISTINCT distribution_json) FROM trial_params WHERE param_name = 'max_running'`); n != 1 {
		t.Errorf("max_running has %d distributions across trials, want 1", n)
	}
	var dist string
	db.QueryRow(`SELECT distribution_json FROM trial_params WHERE param_name = 'max_running' LIMIT 1`).Scan(&dist)
	if !strings.Contains(dist, `"high":600`) {
		t.Errorf("max_running's distribution %s does not hold trial 6's 600", dist)
	}
	rows := count(t, db, `SELECT count(*) FROM trial_params`) + count(t, db, `SELECT count(*) FROM trial_values`) + count(t, db, `SELECT count(*) FROM trial_user_attributes`)
	all := append(append([]store.Trial(nil), trials[:8]...), finished)
	if err := w.Write(ctx, all, nil); err != nil {
		t.Fatal(err)
	}
	again := count(t, db, `SELECT count(*) FROM trial_params`) + count(t, db, `SELECT count(*) FROM trial_values`) + count(t, db, `SELECT count(*) FROM trial_user_attributes`)
	if n := count(t, db, `SELECT count(*) FROM trials`); n != len(trials) || again != rows {
		t.Errorf("re-export: %d trials (want %d), %d child rows (want %d)", n, len(trials), again, rows)
	}
}

// An Optuna study of the same name that servetune did not write is not
// touched, nor is a storage at another schema revision.
func TestRefusesForeignStudiesAndSchemas(t *testing.T) {
	ctx := context.Background()
	sp := fixtureSpaceParsed(t)
	dir := t.TempDir()
	target, _ := ParseURL("sqlite:///" + filepath.Join(dir, "o.db"))
	w, err := Open(ctx, target, sp)
	if err != nil {
		t.Fatal(err)
	}
	db := w.db.sql
	for _, q := range []string{`INSERT INTO studies(study_name) VALUES('theirs')`, `UPDATE studies SET study_name = 'moved' WHERE study_name = 'interop'`, `UPDATE studies SET study_name = 'interop' WHERE study_name = 'theirs'`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if _, err := Open(ctx, target, sp); err == nil || !strings.Contains(err.Error(), "servetune did not write it") {
		t.Errorf("a foreign study of the same name: %v", err)
	}
	other, _ := ParseURL("sqlite:///" + filepath.Join(dir, "old.db"))
	w, err = Open(ctx, other, sp)
	if err != nil {
		t.Fatal(err)
	}
	w.db.sql.Exec(`UPDATE alembic_version SET version_num = 'v2.6.0.a'`)
	w.Close()
	if _, err := Open(ctx, other, sp); err == nil || !strings.Contains(err.Error(), "v2.6.0.a") {
		t.Errorf("an older schema: %v", err)
	}
}

// A repeat finishing after its config's first measurement was mirrored
// moves the config's central value: the mirror rewrites the first (its
// value becomes the mean) and writes the repeat PRUNED.
func TestMirrorRewritesTheFirstWhenARepeatFinishes(t *testing.T) {
	ctx := context.Background()
	sp, trials := fixtureSpaceParsed(t), repeatTrials()
	target, _ := ParseURL("sqlite:///" + filepath.Join(t.TempDir(), "o.db"))
	w, err := Open(ctx, target, sp)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	m, err := NewMirror(ctx, w, trials[:2], nil)
	if err != nil {
		t.Fatal(err)
	}
	value := func() float64 {
		var v float64
		if err := w.db.sql.QueryRow(`SELECT value FROM trial_values JOIN trials USING (trial_id) WHERE number = 2 AND objective = 0`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := value(); v != 9000 {
		t.Fatalf("trial 2 measured once reads %v, want 9000", v)
	}
	if err := m.TrialFinished(ctx, trials[2]); err != nil {
		t.Fatal(err)
	}
	if v := value(); v != 8500 {
		t.Errorf("after its repeat (8000) trial 2 reads %v, want the mean 8500", v)
	}
	if n := count(t, w.db.sql, `SELECT count(*) FROM trials WHERE number = 3 AND state = 'PRUNED'`); n != 1 {
		t.Error("the repeat trial 3 is not PRUNED")
	}
}
