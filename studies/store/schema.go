package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
)

// schemaVersion is the study file's format. Each migration takes a file
// from version i to i+1; Open applies the missing ones in order, so a
// study created by an older servetune resumes under a newer one.
const schemaVersion = 7

var migrations = []string{
	// 0 → 1: the original format.
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
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
CREATE INDEX IF NOT EXISTS trials_config_key ON trials(config_key);`,
	// 1 → 2: why a trial ended when no engine failure says it (rule,
	// prune, interruption) gets its own column instead of posing as a
	// failure class.
	`ALTER TABLE trials ADD COLUMN reason TEXT;`,
	// 2 → 3: quality profiles' replies, kept with each trial so that the
	// baseline's are the reference of baseline_agreement.
	`ALTER TABLE trials ADD COLUMN replies TEXT;`,
	// 3 → 4: the command a trial's engine really ran with and the
	// environment it ran in (issue 16), as JSON.
	`ALTER TABLE trials ADD COLUMN ran TEXT;
ALTER TABLE trials ADD COLUMN fingerprint TEXT;`,
	// 4 → 5: trials run by several workers at once (issue 12): a running
	// trial belongs to the worker that claimed it until its lease, renewed
	// by heartbeat, expires; the GPUs it was packed onto.
	`ALTER TABLE trials ADD COLUMN worker TEXT;
ALTER TABLE trials ADD COLUMN lease_until TEXT;
ALTER TABLE trials ADD COLUMN devices TEXT;`,
	// 5 → 6: what measured each trial (the simulator or a real engine),
	// so a read can say its numbers are simulated, and what the prior
	// predicted for it (issue 23), as JSON.
	`ALTER TABLE trials ADD COLUMN runner TEXT;
ALTER TABLE trials ADD COLUMN prediction TEXT;`,
	// 6 → 7: the simulator's stated intervals around a simulated trial's
	// metrics, for the GPU types a real runner's study simulates (issue
	// 51), as JSON.
	`ALTER TABLE trials ADD COLUMN intervals TEXT;`,
}

// prepare checks that the file is a study and brings its schema up to
// date (read-only stores are only checked, and read as their version is).
func (s *Store) prepare(ctx context.Context, mode Mode) error {
	tables, err := s.tables(ctx)
	if err != nil {
		return err
	}
	empty := len(tables) == 0
	if !empty && (!tables["meta"] || !tables["trials"]) {
		return ErrNotStudy
	}
	if empty && mode != Create {
		return ErrNotStudy
	}
	v, err := s.version(ctx, empty)
	if err != nil {
		return err
	}
	if v > schemaVersion {
		return fmt.Errorf("study format %d is newer than this servetune understands (%d): upgrade servetune", v, schemaVersion)
	}
	s.schema = v
	if mode == ReadOnly {
		return nil
	}
	if v != schemaVersion {
		if err := s.migrate(ctx, v); err != nil {
			return err
		}
	}
	return s.index(ctx)
}

// index adds the indexes a claim's checks read (an index changes no
// record and an older servetune reads the file as before, so it needs no
// new format version): trials by state, for the busy count. SQLite only:
// PostgreSQL workers opening a study at once would race to create it,
// and PostgreSQL counts a table's rows without Go reading them anyway.
func (s *Store) index(ctx context.Context) error {
	if s.pg {
		return nil
	}
	if _, err := s.db.ExecContext(ctx, `CREATE INDEX IF NOT EXISTS trials_state ON trials(state)`); err != nil {
		return fmt.Errorf("index study: %w", err)
	}
	return nil
}

func (s *Store) tables(ctx context.Context) (map[string]bool, error) {
	q := `SELECT name FROM sqlite_master WHERE type='table'`
	if s.pg {
		q = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	rows, err := s.db.QueryContext(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("%w (%w)", ErrNotStudy, err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		out[name] = true
	}
	return out, rows.Err()
}

// version reads the schema version; files from before versioning have
// the original tables and no version row.
func (s *Store) version(ctx context.Context, empty bool) (int, error) {
	if empty {
		return 0, nil
	}
	v, err := s.Meta(ctx, "schema_version")
	if err != nil {
		return 0, err
	}
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%w: schema_version %q", ErrNotStudy, v)
	}
	return n, nil
}

// versionIn re-reads a PostgreSQL study's version inside the migration's
// transaction, under its advisory lock: another worker may have created
// or migrated the study meanwhile.
func (s *Store) versionIn(ctx context.Context, tx *sql.Tx) (int, error) {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'meta'`).Scan(&n); err != nil || n == 0 {
		return 0, err
	}
	var v string
	if err := tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key='schema_version'`).Scan(&v); err != nil {
		return 0, err
	}
	return strconv.Atoi(v)
}

func (s *Store) migrate(ctx context.Context, from int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if s.pg {
		if err := pgLock(ctx, tx); err != nil {
			return err
		}
		if from, err = s.versionIn(ctx, tx); err != nil { // another worker may have migrated meanwhile
			return err
		}
	}
	for v := from; v < schemaVersion; v++ {
		m := migrations[v]
		if v == 0 && s.pg {
			m = pgFirstMigration
		}
		if _, err := tx.ExecContext(ctx, m); err != nil {
			return fmt.Errorf("migrate study format %d → %d: %w", v, v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, s.bind(`INSERT INTO meta(key, value) VALUES('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`), strconv.Itoa(schemaVersion)); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.schema = schemaVersion
	return nil
}
