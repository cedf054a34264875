package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Begin inserts a running trial without ClaimNext's checks, for tests
// that lay out a study's rows by hand (the orphan a crash left, rows a
// reader or a resume meets); the study loop claims through ClaimNext.
func (s *Store) Begin(ctx context.Context, t *Trial) error {
	cfg, err := json.Marshal(t.Config)
	if err != nil {
		return fmt.Errorf("record trial start: %w", err)
	}
	t.State = Running
	err = s.db.QueryRowContext(ctx, s.bind(`INSERT INTO trials(state, origin, config, config_key, started_at, retry_of, reused_from, worker) VALUES(?,?,?,?,?,?,?,?) RETURNING number`),
		t.State, t.Origin, string(cfg), t.Config.Key(), t.Start.UTC().Format(time.RFC3339Nano), nullInt(t.RetryOf), nullInt(t.ReusedFrom), nullStr(t.Worker)).Scan(&t.Number)
	if err != nil {
		return fmt.Errorf("study %s: record trial start: %w", s.path, err)
	}
	return nil
}
