package bench

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// holdCase runs reqs through runRequests in a bubble, each request taking
// its own scripted time (and failing when asked), and checks when each is
// sent.
type holdCase struct {
	name  string
	reqs  []PlannedRequest
	limit int
	takes map[int]time.Duration // default 3 s
	fails map[int]bool
	want  map[int]time.Duration // send offsets; absent: never sent
}

func TestRunRequestsHoldsRounds(t *testing.T) {
	s := time.Second
	round := func(i int, at time.Duration, after int) PlannedRequest {
		return PlannedRequest{Index: i, Arrival: at, After: after}
	}
	for _, tc := range []holdCase{
		{name: "a round waits for the previous one; other users do not",
			reqs: []PlannedRequest{round(0, 0, -1), round(1, s, 0), round(2, s, -1)},
			want: map[int]time.Duration{0: 0, 1: 3 * s, 2: s}},
		{name: "a round due after the previous one ended goes on its arrival",
			reqs: []PlannedRequest{round(0, 0, -1), round(1, 5*s, 0)},
			want: map[int]time.Duration{0: 0, 1: 5 * s}},
		{name: "a held round keeps its slot, as the simulator's",
			reqs:  []PlannedRequest{round(0, 0, -1), round(1, s, 0), round(2, s, -1)},
			limit: 2,
			want:  map[int]time.Duration{0: 0, 1: 3 * s, 2: 3 * s}},
		{name: "a failed round releases the next",
			reqs:  []PlannedRequest{round(0, 0, -1), round(1, s, 0), round(2, s, 1)},
			takes: map[int]time.Duration{0: 2 * s}, fails: map[int]bool{0: true},
			want: map[int]time.Duration{0: 0, 1: 2 * s, 2: 5 * s}},
		{name: "warm-ups and foreign links are not held",
			reqs: []PlannedRequest{round(-1, 0, -1), round(-2, 0, 0), round(7, 0, 9)},
			want: map[int]time.Duration{-1: 0, -2: 0, 7: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t) })
	}
}

func (tc holdCase) run(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		ended := map[int]time.Duration{}
		send := func(ctx context.Context, r *PlannedRequest) Record {
			at := time.Since(start)
			mu.Lock()
			if r.After >= 0 && r.Index >= 0 && r.After < r.Index {
				if end, ok := ended[r.After]; !ok || end > at {
					t.Errorf("request %d sent at %v before request %d ended", r.Index, at, r.After)
				}
			}
			mu.Unlock()
			d, ok := tc.takes[r.Index]
			if !ok {
				d = 3 * time.Second
			}
			time.Sleep(d)
			mu.Lock()
			ended[r.Index] = time.Since(start)
			mu.Unlock()
			return Record{Index: r.Index, Start: at, Success: !tc.fails[r.Index]}
		}
		got := map[int]time.Duration{}
		runRequests(context.Background(), tc.reqs, tc.limit, start, send, func(r Record) { got[r.Index] = r.Start })
		if len(got) != len(tc.want) {
			t.Errorf("sent %v, want %v", got, tc.want)
		}
		for i, w := range tc.want {
			if g, ok := got[i]; !ok || g != w {
				t.Errorf("request %d sent at %v (sent: %v), want %v", i, g, ok, w)
			}
		}
	})
}

// A round held behind one that never ends is dropped, unsent, as soon as
// the run is cancelled, and runRequests returns at once.
func TestRunRequestsCancelReleasesHeldRounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		reqs := []PlannedRequest{{Index: 0, After: -1}, {Index: 1, Arrival: time.Second, After: 0}, {Index: 2, Arrival: time.Second, After: 1}}
		time.AfterFunc(10*time.Second, cancel)
		start := time.Now()
		var sent []int
		runRequests(ctx, reqs, 0, start, func(ctx context.Context, r *PlannedRequest) Record {
			<-ctx.Done() // the server never answers
			return Record{Index: r.Index, Class: ClassAborted}
		}, func(r Record) { sent = append(sent, r.Index) })
		if took := time.Since(start); took != 10*time.Second {
			t.Errorf("returned %v after the start, want at the cancel (10 s)", took)
		}
		if len(sent) != 1 || sent[0] != 0 {
			t.Errorf("records %v, want only request 0's: the held rounds were never sent", sent)
		}
	})
}
