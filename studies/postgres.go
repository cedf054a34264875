package studies

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/servetune/servetune/space"
)

// IsPostgres says whether a storage URL names a PostgreSQL server.
func IsPostgres(storage string) bool {
	return space.IsShared(storage)
}

// Redact is a storage URL fit for logs and errors: its password, if it
// carries one, is replaced.
func Redact(storage string) string {
	u, err := url.Parse(storage)
	if err != nil || u.User == nil {
		if IsPostgres(storage) && err != nil {
			return "postgres://(unparsable URL)"
		}
		return storage
	}
	return u.Redacted()
}

// OpenPostgres opens study name in the PostgreSQL database at storage.
// Each study is a PostgreSQL schema of its own (servetune_<name>) holding
// the same tables as a study.db, so one database serves many studies.
// The password comes from the URL or, better, from PGPASSWORD.
func OpenPostgres(ctx context.Context, storage, name string, mode Mode) (*Store, error) {
	return openPostgres(ctx, storage, pgSchema(name), Redact(storage)+" study "+name, mode)
}

// PostgresStudies opens, read-only, every study in the PostgreSQL
// database at storage (for `servetune studies`); the caller closes them.
func PostgresStudies(ctx context.Context, storage string) ([]*Store, error) {
	db, err := openPostgresDB(storage, "", true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'servetune\_%' ORDER BY schema_name`)
	if err != nil {
		return nil, fmt.Errorf("storage %s: %w", Redact(storage), redactErr(err, storage))
	}
	defer rows.Close()
	var out []*Store
	for rows.Next() {
		var schema string
		if err := rows.Scan(&schema); err != nil {
			return out, err
		}
		st, err := openPostgres(ctx, storage, schema, Redact(storage)+" schema "+schema, ReadOnly)
		if err != nil {
			return out, err
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

func openPostgresDB(storage, schema string, readOnly bool) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(storage)
	if err != nil {
		return nil, fmt.Errorf("storage %s: %w", Redact(storage), redactErr(err, storage))
	}
	if schema != "" {
		cfg.RuntimeParams["search_path"] = schema
	}
	if readOnly { // a reader writes nothing, as a read-only study.db
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	return stdlib.OpenDB(*cfg), nil
}

func openPostgres(ctx context.Context, storage, schema, where string, mode Mode) (*Store, error) {
	db, err := openPostgresDB(storage, schema, mode == ReadOnly)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("storage %s: %w", where, redactErr(err, storage))
	}
	s := &Store{db: db, path: where, readOnly: mode == ReadOnly, pg: true}
	if err := s.createSchema(ctx, schema, mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("open study %s: %w", where, err)
	}
	if err := s.prepare(ctx, mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("open study %s: %w", where, err)
	}
	return s, nil
}

// redactErr keeps a password out of an error that quotes the URL.
func redactErr(err error, storage string) error {
	u, perr := url.Parse(storage)
	if perr != nil || u.User == nil {
		return err
	}
	if pw, ok := u.User.Password(); ok && pw != "" && strings.Contains(err.Error(), pw) {
		return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), pw, "xxxxx"))
	}
	return err
}

var notIdent = regexp.MustCompile(`[^a-z0-9_]+`)

// pgSchema is the schema of a study: its name folded to an identifier,
// with a hash of the exact name so distinct names never share one.
func pgSchema(name string) string {
	h := uint32(2166136261)
	for _, b := range []byte(name) {
		h = (h ^ uint32(b)) * 16777619
	}
	base := notIdent.ReplaceAllString(strings.ToLower(name), "_")
	if len(base) > 40 {
		base = base[:40]
	}
	return "servetune_" + base + "_" + strconv.FormatUint(uint64(h), 36)
}

// createSchema makes the study's schema when a run creates the study.
// Workers starting together serialise on an advisory lock.
func (s *Store) createSchema(ctx context.Context, schema string, mode Mode) error {
	if mode != Create {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := pgLock(ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE SCHEMA IF NOT EXISTS `+pgx.Identifier{schema}.Sanitize()); err != nil {
		return err
	}
	return tx.Commit()
}

// pgStudyLock is the advisory lock key that serialises schema changes
// and claims of one database's studies.
const pgStudyLock = 0x5e7e7

func pgLock(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, pgStudyLock)
	return err
}

// bind rewrites ? placeholders as PostgreSQL's $n.
func (s *Store) bind(q string) string {
	if !s.pg {
		return q
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pgFirstMigration is migration 0 → 1 in PostgreSQL's types; the later
// ones are plain ALTER TABLEs that both dialects read alike.
const pgFirstMigration = `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
	number      BIGSERIAL PRIMARY KEY,
	state       TEXT NOT NULL,
	origin      TEXT NOT NULL,
	config      TEXT NOT NULL,
	config_key  TEXT NOT NULL,
	metrics     TEXT,
	failure     TEXT,
	log_path    TEXT,
	started_at  TEXT NOT NULL,
	ended_at    TEXT,
	gpu_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
	retry_of    INTEGER,
	reused_from INTEGER,
	intermediate TEXT
);
CREATE INDEX IF NOT EXISTS trials_config_key ON trials(config_key);`
