package bench

import (
	"bytes"
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"
)

func prebuildPlan(t *testing.T) (*sender, Plan) {
	t.Helper()
	// Constant gaps: request i is due at (i+1) × 100 ms.
	pl, err := Profile{InputLen: 64, OutputLen: 4, NumPrompts: 6, RequestRate: 10, Burstiness: math.Inf(1), Seed: 2}.Plan()
	if err != nil {
		t.Fatal(err)
	}
	return &sender{plan: &pl, model: "m"}, pl
}

// Prebuilt bodies are the bodies the sender would build, each taken once;
// a request the sender reached first keeps its own, and the prebuilder
// never stores one for it.
func TestPrebuiltBodiesAreTheSendersBodies(t *testing.T) {
	s, pl := prebuildPlan(t)
	b := newBodies(len(pl.Requests))
	if got := b.take(2); got != nil {
		t.Fatal("a body before any was built")
	}
	s.prebuild(context.Background(), b, pl.Requests, time.Now().Add(-time.Hour))
	for i := range pl.Requests {
		got := b.take(i)
		want := pl.appendBody(nil, &pl.Requests[i], "m")
		if i == 2 {
			want = nil // taken before the prebuild
		}
		if !bytes.Equal(got, want) {
			t.Errorf("request %d: body %q, want %q", i, got, want)
		}
		if again := b.take(i); again != nil {
			t.Errorf("request %d's body taken twice", i)
		}
	}
	if n := b.bytes.Load(); n != 0 {
		t.Errorf("%d bytes left accounted after every body was taken", n)
	}
}

// Bodies are built prebuildLead before their arrival, no sooner, and no
// more than the byte bound waits unsent: the prebuilder waits for a take,
// and returns when its context ends.
func TestPrebuildLeadAndBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, pl := prebuildPlan(t)
		b := newBodies(len(pl.Requests))
		one := int64(len(pl.appendBody(nil, &pl.Requests[0], "m")))
		b.limit = 2 * one // room for two bodies
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		start := time.Now()
		go func() { defer close(done); s.prebuild(ctx, b, pl.Requests, start) }()
		time.Sleep(pl.Requests[0].Arrival - prebuildLead - time.Millisecond)
		synctest.Wait()
		if b.slots[0].Load() != nil {
			t.Fatal("request 0 built before its lead")
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if b.slots[0].Load() == nil || b.slots[1].Load() != nil {
			t.Fatal("at request 0's lead, want it built and request 1 not")
		}
		time.Sleep(pl.Requests[len(pl.Requests)-1].Arrival) // every request is due
		synctest.Wait()
		if got := b.bytes.Load(); got > b.limit || b.slots[2].Load() != nil {
			t.Fatalf("%d bytes built, bound %d; request 2 built %v", got, b.limit, b.slots[2].Load() != nil)
		}
		b.take(0)
		synctest.Wait()
		if b.slots[2].Load() == nil {
			t.Fatal("request 2 not built once a body was taken")
		}
		cancel()
		<-done
	})
}
