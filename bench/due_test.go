package bench

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// In a synctest bubble the clock stands still while the dispatcher
// watches it: waitUntil must notice and sleep the last stretch, so that
// the bubble's time moves and the request is due exactly on time.
func TestWaitUntilInABubbleArrivesOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		start := time.Now()
		for _, at := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, time.Second} {
			due := start.Add(at)
			if !waitUntil(context.Background(), timer, due) {
				t.Fatalf("waitUntil(+%v) gave up without a cancellation", at)
			}
			if !time.Now().Equal(due) {
				t.Errorf("due at +%v, returned at +%v", at, time.Since(start))
			}
		}
	})
}

// On the real clock waitUntil never returns before the request's time.
func TestWaitUntilNeverEarly(t *testing.T) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for _, d := range []time.Duration{0, 300 * time.Microsecond, 3 * time.Millisecond} {
		due := time.Now().Add(d)
		if !waitUntil(context.Background(), timer, due) {
			t.Fatal("gave up without a cancellation")
		}
		if now := time.Now(); now.Before(due) {
			t.Errorf("returned %v before its time", due.Sub(now))
		}
	}
}

// A cancelled run stops waiting, in the sleep and in the watch.
func TestWaitUntilStopsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		if waitUntil(ctx, timer, start.Add(time.Hour)) {
			t.Fatal("waited out the hour through a cancellation")
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("stopped %v after the start, want at the cancellation (1s)", got)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	if waitUntil(ctx, timer, time.Now().Add(time.Millisecond)) {
		t.Error("a cancelled context watched the clock to the end")
	}
}
