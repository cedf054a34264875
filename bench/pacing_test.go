package bench

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// In a synctest bubble time is virtual, so the schedule is checked exactly:
// each request is sent at its arrival unless the concurrency cap holds it,
// and then in plan order as soon as a slot frees.
func TestRunRequestsPacing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := time.Second
		reqs := []PlannedRequest{{Index: 0, Arrival: 0, After: -1}, {Index: 1, Arrival: s, After: -1}, {Index: 2, Arrival: s, After: -1}, {Index: 3, Arrival: 5 * s, After: -1}}
		start := time.Now()
		var mu sync.Mutex
		inFlight, peak := 0, 0
		send := func(ctx context.Context, r *PlannedRequest) Record {
			rec := Record{Index: r.Index, Start: time.Since(start), Success: true}
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			mu.Unlock()
			time.Sleep(3 * s) // the server takes 3 s per request
			mu.Lock()
			inFlight--
			mu.Unlock()
			return rec
		}
		got := map[int]time.Duration{}
		runRequests(context.Background(), reqs, 2, start, send, func(r Record) { got[r.Index] = r.Start })
		// 0 at 0 s and 1 at 1 s fill both slots; 2 is due at 1 s but waits
		// for 0 to finish at 3 s; 3 is due at 5 s and 1's slot is free at 4 s.
		want := map[int]time.Duration{0: 0, 1: s, 2: 3 * s, 3: 5 * s}
		for i, w := range want {
			if got[i] != w {
				t.Errorf("request %d sent at %v, want %v", i, got[i], w)
			}
		}
		if peak != 2 {
			t.Errorf("peak in flight %d, want the cap 2", peak)
		}
	})
}

// Cancelling stops the schedule: requests not yet due are never sent, and
// runRequests still returns once the in-flight ones finish.
func TestRunRequestsCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		reqs := Plan{}.Requests
		for i, a := range Arrivals(100, 10, 1, 1) {
			reqs = append(reqs, PlannedRequest{Index: i, Arrival: a, After: -1})
		}
		time.AfterFunc(2*time.Second, cancel)
		sent := 0
		runRequests(ctx, reqs, 0, time.Now(), func(ctx context.Context, r *PlannedRequest) Record {
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
			return Record{Index: r.Index}
		}, func(Record) { sent++ })
		// Poisson at 10/s: about 20 of the 100 are due in the first 2 s.
		if sent < 5 || sent > 40 {
			t.Errorf("%d requests sent before cancel at 2 s of a 10 s schedule", sent)
		}
	})
}

// The live schedule is the plan's: with an unlimited cap, the send times
// equal the arrival offsets.
func TestRunRequestsFollowsArrivals(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := Profile{InputLen: 1, OutputLen: 1, NumPrompts: 50, RequestRate: 5, Burstiness: 0.5, Seed: 9}
		pl, err := p.Plan()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		runRequests(context.Background(), pl.Requests, 0, start, func(_ context.Context, r *PlannedRequest) Record {
			return Record{Index: r.Index, Start: time.Since(start)}
		}, func(r Record) {
			if r.Start != pl.Requests[r.Index].Arrival {
				t.Errorf("request %d sent at %v, planned %v", r.Index, r.Start, pl.Requests[r.Index].Arrival)
			}
		})
	})
}
