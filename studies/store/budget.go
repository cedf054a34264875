package store

import (
	"context"
	"database/sql"
)

// busy is what counts toward n_trials inside a claim's transaction: the
// trials CountDone counts plus the running ones, i.e. every trial but
// the interrupted ones and the rule violations (infeasible without a
// failure). Counted by SQLite, so a claim reads no rows whatever the
// number of trials (CountDone is the same rule over a list; the store
// tests hold the two to each other).
func (s *Store) busy(ctx context.Context, tx *sql.Tx) (int, error) {
	var n int
	err := tx.QueryRowContext(ctx, s.bind(`SELECT count(*) FROM trials WHERE state<>? AND NOT (state=? AND failure IS NULL)`),
		Interrupted, Infeasible).Scan(&n)
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
