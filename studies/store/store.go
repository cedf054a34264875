package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite: keeps the binary cgo-free

	"github.com/servetune/servetune/engines"
)

// Store is a study's record: its SQLite study.db, or its schema in a
// PostgreSQL database (pg), behind the same methods.
type Store struct {
	db       *sql.DB
	path     string
	readOnly bool
	// schema is the file's format version (older read-only files are
	// read as they are).
	schema int
	// pg says the store is a PostgreSQL schema shared by workers, not a
	// study.db (same tables and record model).
	pg bool
}

// Mode says how a store is opened.
type Mode int

const (
	// ReadOnly never writes, not even the schema or a WAL index it can do
	// without: `show`, `best` and `studies` work on a read-only directory
	// and beside a running study.
	ReadOnly Mode = iota
	// ReadWrite opens an existing study to run it.
	ReadWrite
	// Create opens a study, creating the file when it does not exist.
	Create
)

// ErrNotStudy says a file is an SQLite database but not a servetune study.
var ErrNotStudy = errors.New("not a servetune study")

// Open opens the study database at path.
func Open(ctx context.Context, path string, mode Mode) (*Store, error) {
	if mode != Create {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("open study: %w", err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create study directory: %w", err)
	}
	s := &Store{path: path, readOnly: mode == ReadOnly}
	db, err := openDB(ctx, path, mode)
	if err != nil {
		return nil, fmt.Errorf("open study %s: %w", path, err)
	}
	s.db = db
	if err := s.prepare(ctx, mode); err != nil {
		db.Close()
		return nil, fmt.Errorf("open study %s: %w", path, err)
	}
	return s, nil
}

// openDB opens the SQLite handle. Writers use WAL with synchronous=FULL: a
// committed trial survives kill -9 and power loss, and readers never block
// the running study. A reader on a directory it cannot write (no WAL index
// can be made) falls back to immutable mode, which reads the file as is.
func openDB(ctx context.Context, path string, mode Mode) (*sql.DB, error) {
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	if mode == ReadOnly {
		dsn = "file:" + path + "?mode=ro&_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if err = db.PingContext(ctx); err == nil && mode == ReadOnly {
		_, err = db.ExecContext(ctx, `SELECT count(*) FROM sqlite_master`)
	}
	if err != nil && mode == ReadOnly {
		db.Close()
		db, err = sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
		if err == nil {
			db.SetMaxOpenConns(1)
			err = db.PingContext(ctx)
		}
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		return nil, err
	}
	return db, nil
}

// Close closes the database. A writer leaves the file in rollback-journal
// mode, checkpointed and without -wal/-shm files, so that readers on a
// read-only copy or directory need to create nothing; the next writer
// turns WAL back on. Should a reader hold the file, it stays in WAL mode.
func (s *Store) Close() error {
	if !s.readOnly && !s.pg {
		_, _ = s.db.Exec(`PRAGMA journal_mode=DELETE`)
	}
	return s.db.Close()
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// SetMeta stores a study-level value.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, s.bind(`INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`), key, value)
	if err != nil {
		return fmt.Errorf("study %s: store %s: %w", s.path, key, err)
	}
	return nil
}

// Meta reads a study-level value ("" when absent).
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, s.bind(`SELECT value FROM meta WHERE key=?`), key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("study %s: read %s: %w", s.path, key, err)
	}
	return v, nil
}

// Finish stores a trial's outcome. Undefined metrics (NaN, ±Inf) are
// dropped first: they are absent, never stored.
func (s *Store) Finish(ctx context.Context, t *Trial) error {
	_, err := s.finish(ctx, t, "")
	return err
}

// finish writes a trial's outcome where its row matches cond too, and
// says whether it did.
func (s *Store) finish(ctx context.Context, t *Trial, cond string, condArgs ...any) (bool, error) {
	return s.finishIn(ctx, s.db, t, cond, condArgs...)
}

// execer is the database or one transaction on it.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// finishIn is finish within db, the store's handle or a transaction.
func (s *Store) finishIn(ctx context.Context, db execer, t *Trial, cond string, condArgs ...any) (bool, error) {
	t.Metrics = DefinedMetrics(t.Metrics)
	metrics, err := json.Marshal(t.Metrics)
	if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	failure, err := marshalOrNull(t.Failure != nil, t.Failure)
	if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	inter, err := marshalOrNull(len(t.Intermediate) > 0, ToStored(t.Intermediate))
	if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	replies, err := marshalOrNull(len(t.Replies) > 0, t.Replies)
	if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	ran, err := marshalOrNull(t.Ran != nil, t.Ran)
	if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	fp, err := marshalOrNull(t.Fingerprint != nil, t.Fingerprint)
	if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	t.Intervals = DefinedIntervals(t.Intervals)
	ivs, err := marshalOrNull(len(t.Intervals) > 0, t.Intervals)
	if err != nil {
		return false, fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	args := append([]any{t.State, string(metrics), failure, nullStr(t.Reason), nullStr(t.LogPath), t.End.UTC().Format(time.RFC3339Nano), t.GPUSeconds, inter, replies, ran, fp, ivs, t.Number}, condArgs...)
	res, err := db.ExecContext(ctx, s.bind(`UPDATE trials SET state=?, metrics=?, failure=?, reason=?, log_path=?, ended_at=?, gpu_seconds=?, intermediate=?, replies=?, ran=?, fingerprint=?, intervals=? WHERE number=?`+cond), args...)
	if err != nil {
		return false, fmt.Errorf("study %s: record trial %d: %w", s.path, t.Number, err)
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

func marshalOrNull(present bool, v any) (any, error) {
	if !present {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return string(b), nil
}

// RecoverInterrupted records trials left RUNNING by a dead process as
// interrupted and returns them.
func (s *Store) RecoverInterrupted(ctx context.Context, now time.Time) ([]Trial, error) {
	all, err := s.Trials(ctx)
	if err != nil {
		return nil, err
	}
	var out []Trial
	for _, t := range all {
		if t.State != Running {
			continue
		}
		t.State, t.Reason, t.End = Interrupted, "servetune stopped while this trial was running", now
		if err := s.Finish(ctx, &t); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func nullInt(n int) any {
	if n == 0 {
		return nil
	}
	return n
}

func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// failureOf decodes a stored failure column.
func failureOf(raw string) (*engines.Failure, error) {
	f := &engines.Failure{}
	if err := json.Unmarshal([]byte(raw), f); err != nil {
		return nil, err
	}
	return f, nil
}
