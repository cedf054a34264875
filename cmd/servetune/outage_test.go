package main

import (
	"context"
	"database/sql"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
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
	// The bound on the test is not the worker's: on a loaded machine its
	// retries (1 s doubling) and their connection attempts come late, so
	// the test waits long, and only asserts the worker stopped at all and
	// not before its 3 s.
	var r result
	select {
	case r = <-ended:
	case <-time.After(5 * time.Minute):
		t.Fatal("the worker still runs 5 minutes into the outage, with --store-outage 3s")
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
	deadline := time.Now().Add(5 * time.Minute) // a loaded machine's trials come slowly
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

// watchedOutput is a worker's stderr that a test can wait on.
type watchedOutput struct {
	mu   sync.Mutex
	b    strings.Builder
	seen chan struct{}
	want string
}

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if w.seen != nil && strings.Contains(w.b.String(), w.want) {
		close(w.seen)
		w.seen = nil
	}
	return len(p), nil
}

func (w *watchedOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A worker started while PostgreSQL is down waits for it, asked to
// (--wait-for-store: within --store-outage) and then runs its trials; one whose store stays down
// past the bound stops with the bound named, exit 1.
func TestWorkerStartedWhileTheStoreIsDownWaitsForIt(t *testing.T) {
	pg := pgtest.StartCluster(t)
	if err := pg.Stop(); err != nil {
		t.Fatal(err)
	}
	abs := quickstartWithoutPrior(t)
	t.Chdir(t.TempDir())
	t.Setenv(storageEnv, "")
	worker := func(bound string, stderr io.Writer) int {
		return run(context.Background(), []string{"servetune", "--log-level", "info", "worker", "--storage", pg.URL, "--wait-for-store", "--store-outage", bound, "--n-trials", "3", abs}, io.Discard, stderr)
	}

	t.Run("past the bound", func(t *testing.T) {
		var stderr watchedOutput
		start := time.Now()
		code := worker("2s", &stderr)
		if code != 1 || !regexp.MustCompile(`the study store stayed unreachable for \d+s \(--store-outage 2s\)`).MatchString(stderr.String()) {
			t.Errorf("exit %d, want 1 with the outage and its bound named:\n%s", code, stderr.String())
		}
		if held := time.Since(start); held < 2*time.Second {
			t.Errorf("the worker gave up after %s, before its 2s bound", held)
		}
	})

	t.Run("back within the bound", func(t *testing.T) {
		stderr := watchedOutput{seen: make(chan struct{}), want: "the study store is unreachable"}
		seen := stderr.seen
		ended := make(chan int, 1)
		go func() { ended <- worker("5m", &stderr) }()
		select {
		case <-seen:
		case code := <-ended:
			t.Fatalf("the worker ended (exit %d) while the store was down:\n%s", code, stderr.String())
		case <-time.After(time.Minute):
			t.Fatal("the worker never said the store was unreachable")
		}
		if err := pg.Restart(); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-ended:
			if code != 0 {
				t.Fatalf("exit %d once the store was back, want 0:\n%s", code, stderr.String())
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("the worker still runs 2 minutes after the store came back")
		}
		if !strings.Contains(stderr.String(), "the study store is back") {
			t.Errorf("the worker did not say the store was back:\n%s", stderr.String())
		}
		if n := countTrials(t, pg.URL); n != 3 {
			t.Errorf("%d trials in the study, want 3", n)
		}
	})
}

// countTrials counts the quickstart study's trials in PostgreSQL.
func countTrials(t *testing.T, url string) int {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var schema string
	var n int
	if err := db.QueryRow(`SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'servetune\_quickstart\_%'`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM ` + pgx.Identifier{schema, "trials"}.Sanitize()).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// A store that never answers since the start (a mistyped port) fails
// within --store-connect-timeout, not the 15-minute outage bound, exit
// 1, naming host:port and never the password.
func TestAMistypedStorePortFailsFast(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connection refused
	abs := quickstartWithoutPrior(t)
	t.Setenv(storageEnv, "")
	start := time.Now()
	code, _, stderr := runCLI(t, t.TempDir(), "worker", "--storage", "postgres://u:s3cretpw@"+addr+"/db", "--store-connect-timeout", "2s", abs)
	if code != 1 || !strings.Contains(stderr, "the study store was never reached: "+addr) || !strings.Contains(stderr, "--store-connect-timeout 2s") {
		t.Errorf("exit %d, want 1 naming %s and the flag:\n%s", code, addr, stderr)
	}
	if strings.Contains(stderr, "s3cretpw") {
		t.Errorf("the password reached the output:\n%s", stderr)
	}
	if took := time.Since(start); took > 2*time.Minute {
		t.Errorf("gave up after %s: the 2 s connect bound was not the one applied", took)
	}
}
