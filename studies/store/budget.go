package store

import (
	"context"
	"database/sql"

	"github.com/servetune/servetune/engines"
)

// busy is what counts toward n_trials inside a claim's transaction: the
// trials CountDone counts plus the running ones. It reads each trial's
// state and whether it has a failure, and leaves the rule to CountDone, so
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
	return CountDone(ended) + running, rows.Err()
}

// CountDone counts the trials that count toward n_trials: everything that
// finished except interrupted trials (retried) and rule violations (never
// launched, so they cost nothing).
func CountDone(ts []Trial) int {
	n := 0
	for _, t := range ts {
		if t.State != Running && t.State != Interrupted && !t.BrokeRule() {
			n++
		}
	}
	return n
}
