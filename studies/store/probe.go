package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// ProbePostgres checks that the PostgreSQL database at storage answers
// and that study name could be created or written there, without writing
// anything: the schema and a table are created in a transaction that is
// rolled back (PostgreSQL's DDL is transactional).
func ProbePostgres(ctx context.Context, storage, name string) error {
	db, mask, err := openPostgresDB(storage, "", false)
	if err != nil {
		return err
	}
	defer db.Close()
	where := Redact(storage)
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("storage %s: %w", where, mask(err))
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("storage %s: %w", where, mask(err))
	}
	defer tx.Rollback()
	schema := pgx.Identifier{pgSchema(name)}.Sanitize()
	for _, q := range []string{
		`CREATE SCHEMA IF NOT EXISTS ` + schema,
		`CREATE TABLE ` + schema + `.servetune_dry_run (x int)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("storage %s: cannot write study %s: %w", where, name, mask(err))
		}
	}
	return nil
}
