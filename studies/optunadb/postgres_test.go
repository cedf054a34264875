package optunadb

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/servetune/servetune/studies/pgtest"
)

// The same study written into PostgreSQL (Optuna's enum types and all),
// twice, holds each trial once, and Optuna reads it through psycopg2.
func TestPostgresStorage(t *testing.T) {
	url := strings.Replace(pgtest.Start(t), "postgres://", "postgresql://", 1)
	ctx := context.Background()
	sp, trials := fixtureSpaceParsed(t), fixtureTrials()
	writeAll(t, url, sp, trials)
	writeAll(t, url, sp, trials)
	target, _ := ParseURL(url)
	w, err := Open(ctx, target, sp)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := count(t, w.db.sql, `SELECT count(*) FROM trials`); n != len(trials) {
		t.Errorf("%d trial rows after two exports, want %d", n, len(trials))
	}
	if n := count(t, w.db.sql, `SELECT count(*) FROM trials WHERE state = 'PRUNED'::trialstate`); n != 1 {
		t.Errorf("%d pruned trials, want 1", n)
	}
	py := systemPython(t)
	if err := exec.Command(py, "-c", "import psycopg2").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3-psycopg2 is required in CI: %v", err)
		}
		t.Skipf("no psycopg2 for Optuna to read PostgreSQL: %v", err)
	}
	v := loadWithOptuna(t, py, url, "interop")
	if len(v.Trials) != len(trials) || !slices.Equal(v.Best, front(sp, trials)) {
		t.Errorf("Optuna reads %d trials and best %v from PostgreSQL, want %d and %v", len(v.Trials), v.Best, len(trials), front(sp, trials))
	}
	for i, got := range v.Trials {
		checkParams(t, trials[i], got.Params)
		checkValues(t, sp, trials[i], got.Values)
		if want := trials[i].Start.Local().Format("2006-01-02 15:04:05"); got.Start != want {
			t.Errorf("trial %d started %s to Optuna, want %s", trials[i].Number, got.Start, want)
		}
	}
}
