package store

import (
	"testing"
	"time"
)

func TestHolderGoneDecision(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	alive := func(pid int) bool { return pid == 42 }
	lock := func(host string, pid int) *Holder { return &Holder{Host: host, PID: pid} }
	for _, c := range []struct {
		name string
		t    Trial
		lock *Holder
		gone bool
	}{
		{"lease expired", Trial{Worker: "other:7/0", lease: now.Add(-time.Second)}, nil, true},
		{"lease expires now", Trial{Worker: "other:7/0", lease: now}, nil, true},
		{"lease live, worker elsewhere", Trial{Worker: "other:7/0", lease: now.Add(time.Minute)}, nil, false},
		{"lease live, worker here and dead", Trial{Worker: "me:7/1", lease: now.Add(time.Minute)}, nil, true},
		{"lease live, worker here and alive", Trial{Worker: "me:42/1", lease: now.Add(time.Minute)}, nil, false},
		{"lease live, custom worker id", Trial{Worker: "gpu-node-3", lease: now.Add(time.Minute)}, nil, false},
		{"lone run, lock names nobody", Trial{}, nil, true},
		{"lone run, holder here and dead", Trial{}, lock("me", 7), true},
		{"lone run, holder here and alive", Trial{}, lock("me", 42), false},
		{"lone run, holder elsewhere", Trial{}, lock("other", 7), false},
	} {
		why := holderGone(c.t, now, Liveness{Lock: c.lock, Host: "me", Alive: alive})
		if (why != "") != c.gone {
			t.Errorf("%s: holderGone = %q, want gone=%v", c.name, why, c.gone)
		}
	}
}

// MarkHolderGone turns only running trials with a dead holder into
// interrupted ones, saying so; finished trials are left as stored.
func TestMarkHolderGoneLeavesOtherTrials(t *testing.T) {
	now := time.Now()
	ts := []Trial{{Number: 1, State: Complete}, {Number: 2, State: Running}, {Number: 3, State: Running, Worker: "h:1/0", lease: now.Add(time.Hour)}}
	MarkHolderGone(ts, now, Liveness{Host: "me", Alive: func(int) bool { return true }})
	if ts[0].State != Complete || ts[0].HolderGone {
		t.Errorf("a finished trial changed: %+v", ts[0])
	}
	if ts[1].State != Interrupted || !ts[1].HolderGone || ts[1].Reason == "" {
		t.Errorf("a lock-less running trial: %+v, want interrupted (holder gone) with a reason", ts[1])
	}
	if ts[2].State != Running || ts[2].HolderGone {
		t.Errorf("a live leased trial: %+v, want running", ts[2])
	}
}
