package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// openStore creates a study.db in a test's own directory.
func openStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.db")
	st, err := Open(context.Background(), path, Create)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func TestForeignSQLiteFileIsNotAStudy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE photos (id INTEGER PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, mode := range []Mode{ReadOnly, ReadWrite, Create} {
		_, err := Open(context.Background(), path, mode)
		if !errors.Is(err, ErrNotStudy) || !strings.Contains(err.Error(), path) {
			t.Errorf("mode %d: %v, want ErrNotStudy naming the file", mode, err)
		}
	}
}

// show, best and studies must work beside a running study and on a
// directory they cannot write: the read-only store writes nothing.
func TestReadOnlyOpenWritesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "study.db")
	st, err := Open(ctx, path, Create)
	if err != nil {
		t.Fatal(err)
	}
	tr := Trial{Config: space.Config{"x": int64(1)}, Start: time.Now()}
	st.Begin(ctx, &tr)
	st.Close()
	before := snapshot(t, dir)
	ro, err := Open(ctx, path, ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	trials, err := ro.Trials(ctx)
	if err != nil || len(trials) != 1 {
		t.Fatalf("read-only trials: %v %v", trials, err)
	}
	if err := ro.SetMeta(ctx, "k", "v"); err == nil {
		t.Error("a read-only store accepted a write")
	}
	ro.Close()
	if after := snapshot(t, dir); after != before {
		t.Errorf("read-only open changed the directory:\nbefore %s\nafter  %s", before, after)
	}
}

func snapshot(t *testing.T, dir string) string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		info, _ := e.Info()
		b.WriteString(e.Name() + ":" + info.ModTime().String() + ";")
	}
	return b.String()
}

// NaN and infinities never reach the store: undefined metrics are absent
// and a checkpoint's undefined values come back as NaN.
func TestUndefinedValuesAreStoredAsAbsent(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	tr := Trial{Config: space.Config{"x": int64(1)}, Start: time.Now()}
	if err := st.Begin(ctx, &tr); err != nil {
		t.Fatal(err)
	}
	tr.State = Complete
	tr.Metrics = map[string]map[string]float64{"p": {"total_tps": 10, "mean_tpot_ms": math.NaN(), "goodput_rps": math.Inf(1)}}
	tr.Intermediate = []search.Checkpoint{{Profile: "p", Step: 3, Values: []float64{5, math.NaN()}, Violation: math.NaN()}}
	if err := st.Finish(ctx, &tr); err != nil {
		t.Fatalf("finish with NaN: %v", err)
	}
	got, err := st.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := got[0].Metrics["p"]
	if _, ok := m["mean_tpot_ms"]; ok || m["total_tps"] != 10 || len(m) != 1 {
		t.Errorf("metrics %v, want only total_tps", m)
	}
	cp := got[0].Intermediate[0]
	if cp.Values[0] != 5 || !math.IsNaN(cp.Values[1]) || cp.Violation != 0 {
		t.Errorf("checkpoint %+v", cp)
	}
}

// A study written before outcomes had one vocabulary (schema 1) opens,
// reads its prunes, rule violations and interruptions as states with
// reasons, and is migrated when opened for writing.
func TestLegacyStudyIsReadAndMigrated(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "study.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0]); err != nil {
		t.Fatal(err)
	}
	for i, f := range []string{`{"class":"interrupted","message":"servetune stopped"}`, `{"class":"infeasible","message":"breaks rule tp % dp == 0"}`, `{"class":"oom","message":"CUDA out of memory"}`} {
		state := []string{"failed", "infeasible", "infeasible"}[i]
		if _, err := db.Exec(`INSERT INTO trials(state, origin, config, config_key, started_at, failure) VALUES(?, 'sampler', '{}', '', '2026-11-30T00:00:00Z', ?)`, state, f); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, mode := range []Mode{ReadOnly, ReadWrite} {
		st, err := Open(ctx, path, mode)
		if err != nil {
			t.Fatalf("mode %d: %v", mode, err)
		}
		ts, err := st.Trials(ctx)
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if ts[0].State != Interrupted || ts[0].Failure != nil || ts[0].Reason != "servetune stopped" {
			t.Errorf("legacy interruption read as %+v", ts[0])
		}
		if !ts[1].BrokeRule() || ts[1].Reason != "breaks rule tp % dp == 0" {
			t.Errorf("legacy rule violation read as %+v", ts[1])
		}
		if ts[2].Failure == nil || ts[2].Failure.Class != engines.OOM {
			t.Errorf("legacy OOM read as %+v", ts[2])
		}
	}
	st, _ := Open(ctx, path, ReadOnly)
	defer st.Close()
	if v, _ := st.Meta(ctx, "schema_version"); v != strconv.Itoa(schemaVersion) {
		t.Errorf("schema_version %q after a read-write open, want %d", v, schemaVersion)
	}
}
