package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ring buffer behaves as the slice it replaced: pushes at either
// end, pops at the front and removals anywhere, across growth and
// wrap-around, leave the same requests in the same order.
func TestReqQueueMatchesASlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	reqs := make([]*simReq, 64)
	for i := range reqs {
		reqs[i] = &simReq{idx: i}
	}
	var q reqQueue
	var want []*simReq
	for step := range 5000 {
		r := reqs[rng.IntN(len(reqs))]
		switch op := rng.IntN(4); {
		case op == 0:
			q.pushBack(r)
			want = append(want, r)
		case op == 1:
			q.pushFront(r)
			want = append([]*simReq{r}, want...)
		case op == 2 && len(want) > 0:
			if got := q.popFront(); got != want[0] {
				t.Fatalf("step %d: popFront %d, want %d", step, got.idx, want[0].idx)
			}
			want = want[1:]
		case op == 3:
			q.remove(r)
			if i := slices.Index(want, r); i >= 0 {
				want = slices.Delete(want, i, i+1)
			}
		}
		if got := slices.Collect(q.all()); q.len() != len(want) || !slices.Equal(got, want) {
			t.Fatalf("step %d: queue %d long, want %d (order equal: %v)", step, q.len(), len(want), slices.Equal(got, want))
		}
		if len(want) > 0 && q.front() != want[0] {
			t.Fatalf("step %d: front %d, want %d", step, q.front().idx, want[0].idx)
		}
	}
}
