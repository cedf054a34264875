package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/servetune/servetune/studies/store/pgurl"
)

// IsPostgres says whether a storage value names a PostgreSQL server.
func IsPostgres(storage string) bool {
	return pgurl.IsShared(storage)
}

// Redact is a storage value fit for logs and errors: every secret
// masked (pgurl owns the syntax).
func Redact(storage string) string {
	return pgurl.Redact(storage)
}

// ErrNotShared says a worker was pointed at storage other workers cannot
// share (a study.db): it would need the study's lock, which is one
// process's.
var ErrNotShared = errors.New("workers need shared storage (postgres://…); a study.db is run by one `servetune run --workers N`")

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
	db, mask, err := openPostgresDB(storage, "", true)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'servetune\_%' ORDER BY schema_name`)
	if err != nil {
		return nil, mask(fmt.Errorf("storage %s: %w", Redact(storage), err))
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

// openPostgresDB opens a handle on storage and returns with it the mask
// its errors pass through: the driver's may quote the connection.
func openPostgresDB(storage, schema string, readOnly bool) (*sql.DB, func(error) error, error) {
	cfg, mask, err := pgConfig(storage)
	if err != nil {
		return nil, nil, err
	}
	if schema != "" {
		cfg.RuntimeParams["search_path"] = schema
	}
	if readOnly { // a reader writes nothing, as a read-only study.db
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	return stdlib.OpenDB(*cfg), mask, nil
}

// CheckStorage says whether the driver can read a PostgreSQL storage
// value (a bad sslmode, port or timeout), before anything is written;
// a SQLite path passes.
func CheckStorage(storage string) error {
	if !IsPostgres(storage) {
		return nil
	}
	_, _, err := pgConfig(storage)
	return err
}

// pgConfig is the driver's configuration for storage, with the mask its
// errors pass through.
func pgConfig(storage string) (*pgx.ConnConfig, func(error) error, error) {
	st, err := pgurl.Parse(storage)
	if err != nil {
		return nil, nil, fmt.Errorf("storage: %w", err)
	}
	if !st.IsPostgres() {
		return nil, nil, fmt.Errorf("storage %s: %w", st, ErrNotShared)
	}
	secrets := st.Secrets(os.Getenv)
	mask := func(err error) error { return maskErr(err, secrets) }
	cfg, err := pgx.ParseConfig(st.DSN)
	if err != nil {
		return nil, nil, mask(fmt.Errorf("storage %s: the driver cannot read it: %w", st, parseProblem(err)))
	}
	return cfg, mask, nil
}

// Address is where storage points, host:port (each host of a list),
// for a message: never a user, a password or a parameter. A storage the
// driver cannot read is named by its redacted form.
func Address(storage string) string {
	cfg, _, err := pgConfig(storage)
	if err != nil {
		return Redact(storage)
	}
	addrs := []string{net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))}
	for _, f := range cfg.Fallbacks {
		addrs = append(addrs, net.JoinHostPort(f.Host, strconv.Itoa(int(f.Port))))
	}
	return strings.Join(slices.Compact(addrs), ",")
}

// parseProblem is the driver's complaint without the connection string
// it quotes (its own masking is best effort).
func parseProblem(err error) error {
	if pe, ok := errors.AsType[*pgconn.ParseConfigError](err); ok {
		if inner := pe.Unwrap(); inner != nil {
			return inner
		}
		return errors.New("invalid connection string")
	}
	return err
}

func openPostgres(ctx context.Context, storage, schema, where string, mode Mode) (*Store, error) {
	db, mask, err := openPostgresDB(storage, schema, mode == ReadOnly)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(4)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, mask(fmt.Errorf("storage %s: %w", where, err))
	}
	s := &Store{db: db, path: where, readOnly: mode == ReadOnly, pg: true}
	if err := s.createSchema(ctx, schema, mode); err != nil {
		db.Close()
		return nil, mask(fmt.Errorf("open study %s: %w", where, err))
	}
	if err := s.prepare(ctx, mode); err != nil {
		db.Close()
		return nil, mask(fmt.Errorf("open study %s: %w", where, err))
	}
	return s, nil
}

// maskErr keeps every secret out of an error's text; errors.Is and As
// still see the error it wraps.
func maskErr(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if masked := pgurl.MaskSecrets(msg, secrets); masked != msg {
		return &maskedError{msg: masked, err: err}
	}
	return err
}

type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

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
	return DollarPlaceholders(q)
}

// DollarPlaceholders rewrites a query's ? placeholders as PostgreSQL's
// $1, $2, …, so one query text serves SQLite and PostgreSQL (the Optuna
// mirror writes both too).
func DollarPlaceholders(q string) string {
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
