package bench

import (
	"context"
	"runtime"
	"time"
)

// spinWindow is how long before a request's time the dispatcher stops
// sleeping and watches the clock instead. A Go timer on a virtual machine
// wakes 0.6 ms late at the median and 1.8–1.9 ms late at p99 even when the
// machine is idle (BenchmarkTraceSend's "floor"), so a client that sleeps
// until each request's time sends its p99 that late, past issue 51's 1 ms.
// Watching the clock for the last 2 ms costs up to that much CPU per
// request (a fifth of a core at 100 req/s), which a load generator can
// spare; the engine under test runs on its GPUs.
const spinWindow = 2 * time.Millisecond

// frozenChecks is how many readings of an unchanged clock mean the clock
// is not real time but a testing/synctest bubble's, which moves only when
// every goroutine blocks: a real monotonic clock advances between two
// reads that yield the processor in between.
const frozenChecks = 64

// waitUntil returns when due arrives (true) or ctx ends (false): it sleeps
// on timer until spinWindow before due, then yields the processor until
// the clock reads due. timer is the caller's, stopped or fired.
func waitUntil(ctx context.Context, timer *time.Timer, due time.Time) bool {
	if !sleepUntil(ctx, timer, due.Add(-spinWindow)) {
		return false
	}
	last, same := time.Now(), 0
	for now := last; now.Before(due); now = time.Now() {
		if ctx.Err() != nil {
			return false
		}
		if now.Equal(last) {
			if same++; same >= frozenChecks {
				return sleepUntil(ctx, timer, due) // a synctest bubble: let its time move
			}
		} else {
			last, same = now, 0
		}
		runtime.Gosched()
	}
	return true
}

// sleepUntil sleeps on timer until t (at once when t has passed); false
// when ctx ended first.
func sleepUntil(ctx context.Context, timer *time.Timer, t time.Time) bool {
	wait := time.Until(t)
	if wait <= 0 {
		return ctx.Err() == nil
	}
	timer.Reset(wait)
	select {
	case <-ctx.Done():
		timer.Stop()
		return false
	case <-timer.C:
		return true
	}
}
