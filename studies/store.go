package studies

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
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// State is a trial's lifecycle state as stored.
type State string

const (
	Running    State = "running"
	Complete   State = "complete"
	Failed     State = "failed"
	Infeasible State = "infeasible"
	Pruned     State = "pruned"
)

// Trial is the stored record of one trial; its JSON is the export contract.
type Trial struct {
	Number int          `json:"number"`
	State  State        `json:"state"`
	Origin string       `json:"origin"` // baseline | sampler | retry | reused
	Config space.Config `json:"config"`
	// Metrics maps profile → metric → value.
	Metrics    map[string]map[string]float64 `json:"metrics,omitempty"`
	Failure    *engines.Failure              `json:"failure,omitempty"`
	LogPath    string                        `json:"log_path,omitempty"`
	Start      time.Time                     `json:"start"`
	End        time.Time                     `json:"end,omitzero"`
	GPUSeconds float64                       `json:"gpu_seconds"`
	// RetryOf is the interrupted trial this one retries; ReusedFrom the
	// trial whose measurement this one reuses.
	RetryOf    int `json:"retry_of,omitempty"`
	ReusedFrom int `json:"reused_from,omitempty"`
	// Intermediate holds the objective values at each benchmark
	// checkpoint, so later trials can be pruned against this one.
	Intermediate []search.Checkpoint `json:"intermediate,omitempty"`
}

// Store is a study's SQLite file.
type Store struct {
	db   *sql.DB
	path string
}

const schema = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS trials (
	number      INTEGER PRIMARY KEY,
	state       TEXT NOT NULL,
	origin      TEXT NOT NULL,
	config      TEXT NOT NULL,
	config_key  TEXT NOT NULL,
	metrics     TEXT,
	failure     TEXT,
	log_path    TEXT,
	started_at  TEXT NOT NULL,
	ended_at    TEXT,
	gpu_seconds REAL NOT NULL DEFAULT 0,
	retry_of    INTEGER,
	reused_from INTEGER,
	intermediate TEXT
);
CREATE INDEX IF NOT EXISTS trials_config_key ON trials(config_key);
`

// Open opens (creating when create is set) the study database at path.
func Open(ctx context.Context, path string, create bool) (*Store, error) {
	if !create {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("open study: %w", err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create study directory: %w", err)
	}
	// WAL with synchronous=FULL: a committed trial survives kill -9 and
	// power loss; readers (servetune show) never block the running study.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open study %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("open study %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// SetMeta stores a study-level value.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`, key, value)
	return err
}

// Meta reads a study-level value ("" when absent).
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return v, err
}

// Begin inserts a running trial and returns its number. It is committed
// before the engine launches, so a crash leaves a RUNNING row to recover.
func (s *Store) Begin(ctx context.Context, t *Trial) error {
	cfg, err := json.Marshal(t.Config)
	if err != nil {
		return err
	}
	t.State = Running
	res, err := s.db.ExecContext(ctx, `INSERT INTO trials(state, origin, config, config_key, started_at, retry_of, reused_from) VALUES(?,?,?,?,?,?,?)`,
		t.State, t.Origin, string(cfg), t.Config.Key(), t.Start.UTC().Format(time.RFC3339Nano), nullInt(t.RetryOf), nullInt(t.ReusedFrom))
	if err != nil {
		return fmt.Errorf("record trial start: %w", err)
	}
	n, err := res.LastInsertId()
	t.Number = int(n)
	return err
}

// Finish stores a trial's outcome.
func (s *Store) Finish(ctx context.Context, t *Trial) error {
	metrics, err := json.Marshal(t.Metrics)
	if err != nil {
		return err
	}
	var failure []byte
	if t.Failure != nil {
		if failure, err = json.Marshal(t.Failure); err != nil {
			return err
		}
	}
	var inter []byte
	if len(t.Intermediate) > 0 {
		if inter, err = json.Marshal(t.Intermediate); err != nil {
			return err
		}
	}
	_, err = s.db.ExecContext(ctx, `UPDATE trials SET state=?, metrics=?, failure=?, log_path=?, ended_at=?, gpu_seconds=?, intermediate=? WHERE number=?`,
		t.State, string(metrics), nullStr(string(failure)), nullStr(t.LogPath), t.End.UTC().Format(time.RFC3339Nano), t.GPUSeconds, nullStr(string(inter)), t.Number)
	if err != nil {
		return fmt.Errorf("record trial %d: %w", t.Number, err)
	}
	return nil
}

// Trials returns every trial in number order.
func (s *Store) Trials(ctx context.Context) ([]Trial, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT number, state, origin, config, metrics, failure, log_path, started_at, ended_at, gpu_seconds, retry_of, reused_from, intermediate FROM trials ORDER BY number`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Trial
	for rows.Next() {
		var t Trial
		var cfg string
		var metrics, failure, logPath, ended, inter sql.NullString
		var started string
		var retryOf, reusedFrom sql.NullInt64
		if err := rows.Scan(&t.Number, &t.State, &t.Origin, &cfg, &metrics, &failure, &logPath, &started, &ended, &t.GPUSeconds, &retryOf, &reusedFrom, &inter); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(cfg), &t.Config); err != nil {
			return nil, fmt.Errorf("trial %d config: %w", t.Number, err)
		}
		if metrics.Valid && metrics.String != "null" {
			if err := json.Unmarshal([]byte(metrics.String), &t.Metrics); err != nil {
				return nil, fmt.Errorf("trial %d metrics: %w", t.Number, err)
			}
		}
		if failure.Valid {
			t.Failure = &engines.Failure{}
			if err := json.Unmarshal([]byte(failure.String), t.Failure); err != nil {
				return nil, fmt.Errorf("trial %d failure: %w", t.Number, err)
			}
		}
		if inter.Valid {
			if err := json.Unmarshal([]byte(inter.String), &t.Intermediate); err != nil {
				return nil, fmt.Errorf("trial %d checkpoints: %w", t.Number, err)
			}
		}
		t.LogPath = logPath.String
		t.Start, _ = time.Parse(time.RFC3339Nano, started)
		if ended.Valid {
			t.End, _ = time.Parse(time.RFC3339Nano, ended.String)
		}
		t.RetryOf, t.ReusedFrom = int(retryOf.Int64), int(reusedFrom.Int64)
		out = append(out, t)
	}
	return out, rows.Err()
}

// RecoverInterrupted marks trials left RUNNING by a dead process as failed
// (class interrupted) and returns them.
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
		t.State = Failed
		t.Failure = &engines.Failure{Class: engines.Interrupted, Message: "servetune stopped while this trial was running"}
		t.End = now
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
