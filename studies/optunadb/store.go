package optunadb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/servetune/servetune/studies/store"
	_ "modernc.org/sqlite" // the SQLite driver servetune's own store uses
)

// db is an open Optuna storage with its dialect.
type db struct {
	sql   *sql.DB
	pg    bool
	shown string
}

// open connects to the storage and makes sure it holds Optuna 3.1's
// schema, creating it in an empty database.
func open(ctx context.Context, t Target) (*db, error) {
	d := &db{pg: t.Postgres, shown: t.Shown}
	var err error
	if t.Postgres {
		var cfg *pgx.ConnConfig
		if cfg, err = pgx.ParseConfig(t.DSN); err != nil {
			return nil, fmt.Errorf("optuna storage %s: %w", t.Shown, err)
		}
		d.sql = stdlib.OpenDB(*cfg)
	} else {
		d.sql, err = sql.Open("sqlite", "file:"+t.Path+"?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)")
		if err != nil {
			return nil, fmt.Errorf("optuna storage %s: %w", t.Shown, err)
		}
		d.sql.SetMaxOpenConns(1)
	}
	if err := d.ensureSchema(ctx); err != nil {
		d.sql.Close()
		return nil, fmt.Errorf("optuna storage %s: %w", t.Shown, err)
	}
	return d, nil
}

// bind rewrites ? placeholders as PostgreSQL's $n.
func (d *db) bind(q string) string {
	if !d.pg {
		return q
	}
	return store.DollarPlaceholders(q)
}

// ensureSchema creates Optuna's tables in an empty database, or checks
// that an existing one is at the revision Optuna 3.1 expects.
func (d *db) ensureSchema(ctx context.Context) error {
	var rev string
	err := d.sql.QueryRowContext(ctx, `SELECT version_num FROM alembic_version`).Scan(&rev)
	if err == nil {
		if rev != alembicHead {
			return fmt.Errorf("its Optuna schema is at revision %s; servetune writes Optuna 3.1's (%s)", rev, alembicHead)
		}
		return nil
	}
	var n int
	if cerr := d.sql.QueryRowContext(ctx, d.tableCount()).Scan(&n); cerr != nil {
		return cerr
	}
	if n > 0 {
		return errors.New("the database holds tables but no Optuna schema version (alembic_version)")
	}
	return d.create(ctx)
}

func (d *db) tableCount() string {
	if d.pg {
		return `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'studies'`
	}
	return `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'studies'`
}

func (d *db) create(ctx context.Context) error {
	ddl := sqliteDDL
	if d.pg {
		ddl = postgresDDL
	}
	tx, err := d.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, stmt := range strings.Split(ddl, ";\n") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create Optuna schema: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, d.bind(`INSERT INTO version_info(version_info_id, schema_version, library_version) VALUES(1, ?, ?)`), schemaVersion, libraryVersion); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, d.bind(`INSERT INTO alembic_version(version_num) VALUES(?)`), alembicHead); err != nil {
		return err
	}
	return tx.Commit()
}
