package studies

import (
	"context"
	"database/sql"

	"github.com/servetune/servetune/engines"
)

// busy is what counts toward n_trials inside a claim's transaction: the
// trials countDone counts plus the running ones. It reads each trial's
// state and whether it has a failure, and leaves the rule to countDone, so
// the rule is written once.
func (s *Store) busy(ctx context.Context, tx *sql.Tx) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT state, failure IS NULL FROM trials`)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	var ended []Trial
	running := 0
	for rows.Next() {
		var t Trial
		var noFailure bool
		if err := rows.Scan(&t.State, &noFailure); err != nil {
			return 0, err
		}
		if t.State == Running {
			running++
			continue
		}
		if !noFailure {
			t.Failure = &engines.Failure{}
		}
		ended = append(ended, t)
	}
	return countDone(ended) + running, rows.Err()
}
