package studies

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/studies/pgtest"
)

func TestPostgresStoreKeepsTheRecordModel(t *testing.T) {
	url := pgtest.Start(t)
	ctx := context.Background()
	sp := studySpace(t, 8, "")
	st, err := OpenPostgres(ctx, url, "unit", Create)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	dir := DirOf(t.TempDir(), "unit")
	if err := Run(ctx, RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(), Workers: 3, WorkerID: "w", Lease: time.Minute}); err != nil {
		t.Fatal(err)
	}
	pg, err := st.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := countDone(pg); got != 8 {
		t.Errorf("%d trials done in PostgreSQL, want 8", got)
	}
	if v, _ := st.Meta(ctx, "schema_version"); v != "5" {
		t.Errorf("schema_version %q, want 5", v)
	}
	again, err := OpenPostgres(ctx, url, "unit", ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	ro, err := again.Trials(ctx)
	if err != nil || len(ro) != len(pg) || ro[0].Origin != "baseline" || ro[0].Metrics == nil {
		t.Errorf("reopened study: %d trials (%v), want %d with the baseline's metrics", len(ro), err, len(pg))
	}
	if _, err := OpenPostgres(ctx, url, "other", ReadOnly); err == nil {
		t.Error("a study that does not exist opened read-only")
	}
}

func TestStorageURLPasswordNeverReachesErrors(t *testing.T) {
	_, err := OpenPostgres(context.Background(), "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1", "x", ReadOnly)
	if err == nil {
		t.Fatal("opened a store on a closed port")
	}
	if strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error leaks the password: %v", err)
	}
	if got := Redact("postgres://u:s3cret@h/db"); strings.Contains(got, "s3cret") {
		t.Errorf("Redact = %q", got)
	}
}
