package store

import (
	"context"
	"database/sql"
	"net/url"
	"strings"
	"testing"

	"github.com/servetune/servetune/studies/pgtest"
)

// The probe passes where a study can be written and leaves nothing
// behind; a role that may not create refuses, and so does a server that
// does not answer.
func TestProbePostgres(t *testing.T) {
	base := pgtest.Start(t)
	ctx := context.Background()
	if err := ProbePostgres(ctx, base, "night"); err != nil {
		t.Fatalf("probe: %v", err)
	}
	st, err := PostgresStudies(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	if len(st) != 0 {
		t.Errorf("the probe left %d studies behind", len(st))
	}
	db := openURL(t, base)
	for _, q := range []string{
		`CREATE ROLE reader LOGIN PASSWORD 'pw-reader'`,
		`REVOKE CREATE ON DATABASE postgres FROM PUBLIC`,
		`REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u, _ := url.Parse(base)
	u.User = url.UserPassword("reader", "pw-reader")
	err = ProbePostgres(ctx, u.String(), "night")
	if err == nil || !strings.Contains(err.Error(), "cannot write study night") || strings.Contains(err.Error(), "pw-reader") {
		t.Errorf("a role without CREATE: %v", err)
	}
	if err := ProbePostgres(ctx, "postgres://u:secret@127.0.0.1:1/x", "night"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("no server: %v", err)
	}
}

func openURL(t *testing.T, u string) *sql.DB {
	t.Helper()
	db, _, err := openPostgresDB(u, "", false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
