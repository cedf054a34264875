package store

import (
	"context"
	"database/sql"
)

// busy is what counts toward n_trials inside a claim's transaction: the
// trials CountDone counts plus the running ones, i.e. every trial but
// the interrupted ones and the rule violations (infeasible without a
// failure). Counted by the database on the state index (trials_state),
// so a claim reads no trial's row: all trials, less the interrupted and
// infeasible ones looked up by state (CountDone is the same rule over a
// list; the store tests hold the two to each other).
func (s *Store) busy(ctx context.Context, tx *sql.Tx) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, s.bind(`SELECT (SELECT count(*) FROM trials)
	- (SELECT count(*) FROM trials WHERE state=?)
	- (SELECT count(*) FROM trials WHERE state=? AND failure IS NULL)`), Interrupted, Infeasible).Scan(&n)
	return n, err
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
