package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rs/zerolog"
)

// DefaultStoreOutage is how long workers ride out a study store they
// cannot reach (a PostgreSQL restart, failover, network cut) before they
// give up: long enough for a server restart or a managed failover.
const DefaultStoreOutage = 15 * time.Minute

// ErrStoreOutage says the study store stayed unreachable past the bound.
var ErrStoreOutage = errors.New("the study store stayed unreachable")

// DefaultStoreConnect is how long a study store never reached since the
// start is waited for: a wrong host or port fails within seconds, not
// after the outage bound.
const DefaultStoreConnect = 30 * time.Second

// ErrStoreNeverReached says the study store did not answer once since
// the start, within the connect bound.
var ErrStoreNeverReached = errors.New("the study store was never reached")

// Unreachable decides whether a store error means the store cannot be
// reached — a connection refused, reset or closed, the server shutting
// down or not yet accepting connections — and is worth riding out,
// unlike a query the server refused.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		// Class 08: connection exception; 57P01-03: admin/crash
		// shutdown, cannot connect now (the server is starting).
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if _, ok := errors.AsType[net.Error](err); ok {
		return true
	}
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, pgconn.ErrConnClosed) || pgconn.SafeToRetry(err) || pgconn.Timeout(err)
}

// Outage follows one pool's view of its store: when it stopped
// answering, when it came back, and the backoff between attempts.
type Outage struct {
	// Bound is how long an outage is ridden out before giving up.
	Bound time.Duration
	// Connect bounds instead the wait for a store that never answered
	// since the start (0: Bound): more likely a typo than an outage.
	Connect time.Duration
	// Where names the store in that error: host:port, never a secret.
	Where string
	// reached says the store answered once.
	reached bool
	// since is when the current outage began (zero: the store answers);
	// back is when the store last came back after one.
	since, back time.Time
	delay       time.Duration
}

// storeCallTimeout bounds one write to the store, so that a store cut
// off by the network (no refusal, no reset) is an outage too.
const storeCallTimeout = 30 * time.Second

// Graceful is ctx's values without its cancellation, for a write that
// must not be half-made: it ends a second after ctx does (a signal acts
// at once even when the store hangs) or after storeCallTimeout.
func Graceful(ctx context.Context) (context.Context, context.CancelFunc) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeCallTimeout)
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(time.Second, cancel) })
	return wctx, func() { stop(); cancel() }
}

// Backoff between attempts to reach a store that does not answer.
const (
	firstRetry = time.Second
	maxRetry   = 15 * time.Second
)

// Failed records a store call that failed at now. It returns nil when
// the caller should ride the outage out (retry later), else the error to
// stop with: err itself when the store did answer, ErrStoreOutage once
// the outage has lasted past the bound.
func (o *Outage) Failed(err error, now time.Time, log zerolog.Logger) error {
	if !Unreachable(err) {
		return err
	}
	first := !o.reached && o.Connect > 0
	if o.since.IsZero() {
		o.since, o.delay = now, 0
		if first {
			log.Warn().Err(err).Str("store", o.Where).Dur("for_up_to", o.Connect).Msg("the study store does not answer; waiting for it")
		} else {
			log.Warn().Err(err).Dur("for_up_to", o.Bound).Msg("the study store is unreachable; the trials in flight keep running, and their results are written when it is back")
		}
	}
	down := now.Sub(o.since)
	if first && down > o.Connect {
		return fmt.Errorf("%w: %s did not answer for %s since the start (--store-connect-timeout %s; check the host and port, or pass --wait-for-store to wait up to --store-outage): %w",
			ErrStoreNeverReached, o.Where, down.Round(time.Second), o.Connect, err)
	}
	if down > o.Bound {
		return fmt.Errorf("%w for %s (--store-outage %s): %w", ErrStoreOutage, down.Round(time.Second), o.Bound, err)
	}
	return nil
}

// Answered records a store call that succeeded at now.
func (o *Outage) Answered(now time.Time, log zerolog.Logger) {
	o.reached = true
	if o.since.IsZero() {
		return
	}
	log.Info().Dur("after", now.Sub(o.since).Round(time.Second)).Msg("the study store is back")
	o.since, o.back, o.delay = time.Time{}, now, 0
}

// Down says whether the store is unreachable.
func (o *Outage) Down() bool { return !o.since.IsZero() }

// RetryIn is the wait before the next attempt: a second, doubling up to
// maxRetry.
func (o *Outage) RetryIn() time.Duration {
	o.delay = nextDelay(o.delay, maxRetry)
	return o.delay
}

// retryWithin is RetryIn, but the last try of a store never reached
// comes just past the connect bound, not up to a backoff step later.
func (o *Outage) retryWithin(now time.Time) time.Duration {
	d := o.RetryIn()
	if o.reached || o.Connect <= 0 || o.since.IsZero() {
		return d
	}
	return max(min(d, o.Connect-now.Sub(o.since)+time.Millisecond), 0)
}

// nextDelay doubles a backoff from firstRetry up to ceiling.
func nextDelay(prev, ceiling time.Duration) time.Duration {
	if prev <= 0 {
		return min(firstRetry, ceiling)
	}
	return min(2*prev, ceiling)
}

// MayReclaim says whether expired leases may be reclaimed at now: not
// during an outage, nor for one lease after it, so that peers who lost
// the store too renew their leases (which ran out meanwhile) before
// anyone takes their trials.
func (o *Outage) MayReclaim(now time.Time, lease time.Duration) bool {
	return !o.Down() && (o.back.IsZero() || now.Sub(o.back) >= lease)
}

// RideOut calls try until it succeeds, fails with an error the store
// answered with, or the store has stayed unreachable past o.Bound; the
// waits between attempts back off (retryIn) and end at once with ctx.
// It is how a worker started while its store is down waits for it, as a
// running worker does.
func RideOut(ctx context.Context, o *Outage, log zerolog.Logger, try func(context.Context) error) error {
	for {
		actx, cancel := context.WithTimeout(ctx, storeCallTimeout)
		err := try(actx)
		cancel()
		if err == nil {
			o.Answered(time.Now(), log)
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w (the study store: %w)", ctx.Err(), err)
		}
		if stop := o.Failed(err, time.Now(), log); stop != nil {
			return stop
		}
		wait := time.NewTimer(o.retryWithin(time.Now()))
		select {
		case <-ctx.Done():
			wait.Stop()
			return fmt.Errorf("%w (waiting for the study store: %w)", ctx.Err(), err)
		case <-wait.C:
		}
	}
}
