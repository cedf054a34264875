package bench

import (
	"context"
	"sync/atomic"
	"time"
)

// Request bodies are built ahead of their requests' arrival, so that a
// request falling due only has its HTTP call left: an 8K-token prompt's
// body is ~50 kB of JSON and took 0.1–0.2 ms to build on a loaded
// machine (docs/benchmarks.md, issue 51), a fifth of the 1 ms a trace
// replay may be late.
const (
	// prebuildLead is how long before its arrival a body is built.
	prebuildLead = 20 * time.Millisecond
	// prebuildBytes bounds the bodies built and not yet sent (requests a
	// concurrency cap holds keep theirs until sent).
	prebuildBytes = 16 << 20
)

// bodies holds prebuilt request bodies by plan index. A slot is nil
// (nothing yet), a body, or taken: the sender came first and built its
// own, and a body built later is dropped.
type bodies struct {
	slots []atomic.Pointer[[]byte]
	bytes atomic.Int64  // built, not yet taken
	limit int64         // most bytes built and not yet taken (prebuildBytes)
	freed chan struct{} // a body was taken: room for the next
}

var takenBody = new([]byte)

func newBodies(n int) *bodies {
	return &bodies{slots: make([]atomic.Pointer[[]byte], n), limit: prebuildBytes, freed: make(chan struct{}, 1)}
}

// take returns request i's prebuilt body, or nil when there is none (the
// sender then builds it), and marks the slot taken either way.
func (b *bodies) take(i int) []byte {
	if b == nil || i < 0 || i >= len(b.slots) {
		return nil
	}
	p := b.slots[i].Swap(takenBody)
	if p == nil || p == takenBody {
		return nil
	}
	b.bytes.Add(-int64(len(*p)))
	select {
	case b.freed <- struct{}{}:
	default:
	}
	return *p
}

// prebuild builds the plan's bodies in arrival order, each prebuildLead
// before its request is due, while fewer than prebuildBytes wait unsent.
// It returns when every body is built or dropped, or ctx ends.
func (s *sender) prebuild(ctx context.Context, b *bodies, reqs []PlannedRequest, start time.Time) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i := range reqs {
		r := &reqs[i]
		if r.Index < 0 || r.Index >= len(b.slots) {
			continue
		}
		if wait := time.Until(start.Add(r.Arrival - prebuildLead)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		for b.bytes.Load() >= b.limit {
			select {
			case <-ctx.Done():
				return
			case <-b.freed:
			}
		}
		if b.slots[r.Index].Load() != nil {
			continue // already sent
		}
		body := s.plan.appendBody(make([]byte, 0, 64+8*r.InputLen), r, s.model)
		b.bytes.Add(int64(len(body)))
		if !b.slots[r.Index].CompareAndSwap(nil, &body) {
			b.bytes.Add(-int64(len(body))) // the sender came first
		}
	}
}
