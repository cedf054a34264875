package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrFull says the study has n_trials finished or running: claiming
// another trial would over-run it.
var ErrFull = errors.New("the study has all its trials finished or running")

// ErrTaken says another worker claimed the same trial (the same retry,
// the baseline, or the same config) since this one last read the study.
var ErrTaken = errors.New("another worker claimed this trial")

// Caps bound what a claim may start. The study decides them (the claim
// cap on measurements is the search's rule, not the store's); the store
// only checks them inside the claim's transaction.
type Caps struct {
	// Trials is n_trials: a claim beyond it is ErrFull.
	Trials int
	// Repeat is --repeat: the measurements of one config a "repeat"
	// trial fills up to (and the floor of Measurements).
	Repeat int
	// Measurements is the most completed or running measurements of one
	// config that noise repeats and confirmations take
	// (search.MaxMeasurements for a study).
	Measurements int
}

// ClaimNext claims t for t.Worker until until (a zero until: no lease
// and no worker, the claim of a run holding the study's lock that runs
// one trial at a time and that nobody may reclaim), with what measures it
// (t.Runner) and what the prior predicted for it (t.Prediction), unless the study already
// has caps.Trials trials finished or running (ErrFull) or another worker
// holds or measured the same thing (ErrTaken). The check and the insert
// are one transaction, serialised across workers, so n_trials is exact
// and no config is measured twice (more than caps.Repeat times, for a
// --repeat study) however many workers race.
func (s *Store) ClaimNext(ctx context.Context, t *Trial, until time.Time, caps Caps) error {
	ctx, cancel := Graceful(ctx) // a claim is never half-made, nor hangs
	defer cancel()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("study %s: claim trial: %w", s.path, err)
	}
	defer tx.Rollback()
	if s.pg {
		if err := pgLock(ctx, tx); err != nil {
			return fmt.Errorf("study %s: claim trial: %w", s.path, err)
		}
	}
	if err := s.claimable(ctx, tx, *t, caps); err != nil {
		return err
	}
	if err := s.insertLeased(ctx, tx, t, until); err != nil {
		return err
	}
	return tx.Commit()
}

// claimable checks, inside the claim's transaction, that t may start.
func (s *Store) claimable(ctx context.Context, tx *sql.Tx, t Trial, caps Caps) error {
	busy, err := s.busy(ctx, tx)
	if err != nil {
		return fmt.Errorf("study %s: claim trial: %w", s.path, err)
	}
	if busy >= caps.Trials {
		return ErrFull
	}
	q, args, limit := takenQuery(t, caps)
	if q == "" {
		return nil
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.bind(q), args...).Scan(&n); err != nil {
		return fmt.Errorf("study %s: claim trial: %w", s.path, err)
	}
	if n >= limit {
		return ErrTaken
	}
	return nil
}

// takenQuery counts the trials that make t a duplicate once they number
// limit: a retry already made, a baseline already measured or running, a
// config already measured or running — or, for a repeat, measured or
// running repeat times; a noise repeat or confirmation, completed or
// running caps.Measurements times; a revisit (a pruned config proposed again), a
// trial of that config that was not pruned. Reuses are duplicates on
// purpose.
func takenQuery(t Trial, caps Caps) (q string, args []any, limit int) {
	switch {
	case t.RetryOf != 0:
		return `SELECT count(*) FROM trials WHERE retry_of=?`, []any{t.RetryOf}, 1
	case t.Origin == "baseline":
		return `SELECT count(*) FROM trials WHERE origin='baseline' AND state<>?`, []any{Interrupted}, 1
	case t.Origin == "sampler" || t.Origin == "prior" || t.Origin == "enqueued" || t.Origin == "warm-start":
		return `SELECT count(*) FROM trials WHERE config_key=? AND state<>?`, []any{t.Config.Key(), Interrupted}, 1
	case t.Origin == "revisit":
		// A pruned config proposed again: taken once any of its trials
		// ended otherwise (or runs), and the prior revisits a config once.
		return `SELECT count(*) FROM trials WHERE config_key=? AND state<>? AND state<>?`, []any{t.Config.Key(), Interrupted, Pruned}, 1
	case t.Origin == "repeat":
		// Counted as the study loop counts measurements (pick.go's
		// count): a pruned or failed trial is not one, or the loop would
		// ask for a repeat the store refuses, forever.
		return `SELECT count(*) FROM trials WHERE config_key=? AND state IN (?,?,?) AND reused_from IS NULL`, []any{t.Config.Key(), Complete, Infeasible, Running}, max(caps.Repeat, 1)
	case t.Origin == "noise" || t.Origin == "confirm":
		// Measuring again on purpose (confirm.go), up to
		// caps.Measurements completed measurements of the config,
		// counted as the loop's confirmation counts them.
		return `SELECT count(*) FROM trials WHERE config_key=? AND state IN (?,?) AND reused_from IS NULL`, []any{t.Config.Key(), Complete, Running}, max(caps.Repeat, caps.Measurements)
	}
	return "", nil, 0
}

func (s *Store) insertLeased(ctx context.Context, tx *sql.Tx, t *Trial, until time.Time) error {
	cfg, err := json.Marshal(t.Config)
	if err != nil {
		return fmt.Errorf("record trial start: %w", err)
	}
	devices, err := marshalOrNull(len(t.Devices) > 0, t.Devices)
	if err != nil {
		return fmt.Errorf("record trial start: %w", err)
	}
	// What measures the trial and what the prior predicted for it go in
	// the same row: a claim is one write, so an outage cannot leave a
	// claimed trial that its worker gave up on between two writes.
	pred, err := marshalOrNull(t.Prediction != nil, t.Prediction)
	if err != nil {
		return fmt.Errorf("record trial start: %w", err)
	}
	var lease any
	if !until.IsZero() {
		lease = stamp(until)
	}
	t.State = Running
	err = tx.QueryRowContext(ctx, s.bind(`INSERT INTO trials(state, origin, config, config_key, started_at, retry_of, reused_from, worker, lease_until, devices, runner, prediction) VALUES(?,?,?,?,?,?,?,?,?,?,?,?) RETURNING number`),
		t.State, t.Origin, string(cfg), t.Config.Key(), t.Start.UTC().Format(time.RFC3339Nano), nullInt(t.RetryOf), nullInt(t.ReusedFrom), nullStr(t.Worker), lease, devices, nullStr(t.Runner), pred).Scan(&t.Number)
	if err != nil {
		return fmt.Errorf("study %s: record trial start: %w", s.path, err)
	}
	return nil
}
