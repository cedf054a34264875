package main

import (
	"database/sql"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/servetune/servetune/studies/pgtest"
)

// A worker whose store stays down past --store-outage stops with a clear
// message naming the bound (exit 1), not at its first failed write.
func TestWorkerStopsPastTheStoreOutageBound(t *testing.T) {
	pg := pgtest.StartCluster(t)
	abs := quickstartWithoutPrior(t)
	dir := t.TempDir()
	t.Setenv(storageEnv, "")
	type result struct {
		code   int
		stderr string
		at     time.Time
	}
	ended := make(chan result, 1)
	go func() {
		code, _, errText := runCLI(t, dir, "--log-level", "warn", "worker", "--storage", pg.URL, "--store-outage", "3s", "--n-trials", "100000", abs)
		ended <- result{code, errText, time.Now()}
	}()
	awaitTrials(t, pg.URL, 3)
	// The outage starts when the stop begins: connections die before
	// pg_ctl returns, and the worker may see it first.
	stopped := time.Now()
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-ended:
	case <-time.After(2 * time.Minute):
		t.Fatal("the worker still runs 2 minutes into the outage, with --store-outage 3s")
	}
	if r.code != 1 || !regexp.MustCompile(`the study store stayed unreachable for \d+s \(--store-outage 3s\)`).MatchString(r.stderr) {
		t.Errorf("exit %d, want 1 with the outage and its bound named:\n%s", r.code, r.stderr)
	}
	if !regexp.MustCompile(`study store is unreachable; the trials in flight keep running`).MatchString(r.stderr) {
		t.Errorf("no warning when the store went away:\n%s", r.stderr)
	}
	if held := r.at.Sub(stopped); held < 3*time.Second {
		t.Errorf("the worker stopped %s into the outage, before its 3s bound", held)
	}
}

// awaitTrials waits until the study in PostgreSQL has n trials.
func awaitTrials(t *testing.T, url string, n int) {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		var schema string
		var got int
		if db.QueryRow(`SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'servetune\_quickstart\_%'`).Scan(&schema) == nil &&
			db.QueryRow(`SELECT count(*) FROM `+pgx.Identifier{schema, "trials"}.Sanitize()).Scan(&got) == nil && got >= n {
			return
		}
		time.Sleep(20 * time.Millisecond) // polling the worker's progress
	}
	t.Fatalf("the study never had %d trials", n)
}
