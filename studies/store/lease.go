package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultLease is how long a worker's claim on a running trial lasts
// without a heartbeat. Heartbeats come every third of it, so a worker
// must miss two in a row before its trial is taken from it.
const DefaultLease = time.Minute

// ErrLeaseLost says a trial's lease expired and the trial was reclaimed
// as interrupted: its worker's result is no longer the record.
var ErrLeaseLost = errors.New("trial lease lost")

// Renew extends the lease of a running trial its worker still holds.
func (s *Store) Renew(ctx context.Context, number int, worker string, until time.Time) error {
	res, err := s.db.ExecContext(ctx, s.bind(`UPDATE trials SET lease_until=? WHERE number=? AND worker=? AND state=?`), stamp(until), number, worker, Running)
	if err != nil {
		return fmt.Errorf("study %s: renew lease of trial %d: %w", s.path, number, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(fmt.Errorf("trial %d: %w", number, ErrLeaseLost), err)
	}
	return nil
}

// FinishLeased stores the outcome of a trial its worker still holds; a
// trial reclaimed meanwhile keeps its interrupted record (ErrLeaseLost).
// A trial claimed without a lease (no worker) is written while it runs.
func (s *Store) FinishLeased(ctx context.Context, t *Trial) error {
	return s.finishLeased(ctx, s.db, t)
}

func (s *Store) finishLeased(ctx context.Context, db execer, t *Trial) error {
	cond, args := ` AND worker=? AND state=?`, []any{t.Worker, Running}
	if t.Worker == "" {
		cond, args = ` AND worker IS NULL AND state=?`, []any{Running}
	}
	ok, err := s.finishIn(ctx, db, t, cond, args...)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("trial %d: %w", t.Number, ErrLeaseLost)
	}
	return nil
}

// FinishLeasedAll stores the outcomes of several trials, each as
// FinishLeased would, in one transaction: one commit (one fsync of
// SQLite's WAL) for every result the loop has in hand, and all of them
// or none recorded. lost[i] is ErrLeaseLost for a trial reclaimed
// meanwhile (its interrupted record kept, the others written); err is a
// failure of the whole transaction, which then wrote nothing.
func (s *Store) FinishLeasedAll(ctx context.Context, ts []*Trial) (lost []error, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("study %s: record trials: %w", s.path, err)
	}
	defer tx.Rollback()
	lost = make([]error, len(ts))
	for i, t := range ts {
		err := s.finishLeased(ctx, tx, t)
		if err != nil && !errors.Is(err, ErrLeaseLost) {
			return nil, err
		}
		lost[i] = err
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("study %s: record trials: %w", s.path, err)
	}
	return lost, nil
}

// ReclaimExpired records as interrupted the running trials whose lease
// expired before now (their worker died or lost the store) and returns
// them; their configs are retried once, like any interrupted trial.
// Trials without a lease belong to a run holding the study's lock and
// are left alone.
func (s *Store) ReclaimExpired(ctx context.Context, now time.Time) ([]Trial, error) {
	rows, err := s.db.QueryContext(ctx, s.bind(`SELECT number, worker, lease_until FROM trials WHERE state=? AND lease_until IS NOT NULL`), Running)
	if err != nil {
		return nil, fmt.Errorf("study %s: find expired leases: %w", s.path, err)
	}
	expired, err := scanExpired(rows, now)
	if err != nil {
		return nil, fmt.Errorf("study %s: find expired leases: %w", s.path, err)
	}
	var out []Trial
	for _, n := range expired {
		t, ok, err := s.reclaim(ctx, n, now)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// leased is a running trial's claim as stored.
type leased struct {
	number int
	worker string
	until  string
}

func scanExpired(rows interface {
	Next() bool
	Scan(...any) error
	Err() error
	Close() error
}, now time.Time) ([]leased, error) {
	defer rows.Close()
	var out []leased
	for rows.Next() {
		var l leased
		if err := rows.Scan(&l.number, &l.worker, &l.until); err != nil {
			return nil, err
		}
		if expired(l.until, now) {
			out = append(out, l)
		}
	}
	return out, rows.Err()
}

// expired decides whether a stored lease has run out at now. A lease
// that cannot be read has run out: a trial nobody can prove it holds is
// better retried than left running forever.
func expired(until string, now time.Time) bool {
	t, err := time.Parse(time.RFC3339Nano, until)
	return err != nil || !now.Before(t)
}

// reclaim records one expired trial as interrupted unless its worker
// renewed or finished it in the meantime.
func (s *Store) reclaim(ctx context.Context, l leased, now time.Time) (Trial, bool, error) {
	t := Trial{Number: l.number, Worker: l.worker, State: Interrupted, End: now,
		Reason: fmt.Sprintf("worker %s stopped renewing its lease (it died or lost the study store)", l.worker)}
	ok, err := s.finish(ctx, &t, ` AND worker=? AND state=? AND lease_until=?`, l.worker, Running, l.until)
	if err != nil || !ok {
		return Trial{}, false, err
	}
	all, err := s.Trials(ctx)
	if err != nil {
		return Trial{}, false, err
	}
	for _, u := range all {
		if u.Number == l.number {
			return u, true, nil
		}
	}
	return Trial{}, false, fmt.Errorf("study %s: trial %d vanished while reclaimed", s.path, l.number)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Renewer is what a heartbeat needs of a store.
type Renewer interface {
	Renew(ctx context.Context, number int, worker string, until time.Time) error
}

// Heartbeat renews a trial's lease every third of lease until ctx ends.
// A renewal that fails (the store is down) is retried soon, with
// backoff, so that a lease that ran out during an outage is renewed as
// soon as the store is back, before peers may reclaim it. A lost lease
// cancels the trial (lost), so the worker stops an engine whose result
// would no longer be recorded.
func Heartbeat(ctx context.Context, s Renewer, t Trial, lease time.Duration, now func() time.Time, lost context.CancelFunc) {
	every := lease / 3
	wait, ok := every, true
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		rctx, cancel := context.WithTimeout(ctx, every) // a hung store is a failed renewal
		err := s.Renew(rctx, t.Number, t.Worker, now().Add(lease))
		cancel()
		if errors.Is(err, ErrLeaseLost) {
			lost()
			return
		}
		wait, ok = renewIn(err == nil, ok, wait, every), err == nil
		timer.Reset(wait)
	}
}

// renewIn is the wait before the next renewal: the heartbeat interval
// after one that worked, a backoff from a second up to the interval
// after one that failed.
func renewIn(ok, wasOK bool, prev, every time.Duration) time.Duration {
	switch {
	case ok:
		return every
	case wasOK:
		return nextDelay(0, every)
	}
	return nextDelay(prev, every)
}
