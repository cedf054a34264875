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

// The block (reqQueue.blk) is what the last pushFrontBlock put first —
// joined with the block it lands on — less what has left: contiguous,
// blkOff requests behind the front, forgotten by a removal.
func TestReqQueueBlockFollowsItsRequests(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var q reqQueue
	var want []*simReq
	var inBlk []bool // per want entry
	next := 0
	fresh := func() *simReq { next++; return &simReq{idx: next} }
	for step := range 20000 {
		switch op := rng.IntN(6); {
		case op == 0:
			r := fresh()
			q.pushBack(r)
			want, inBlk = append(want, r), append(inBlk, false)
		case op == 1:
			r := fresh()
			q.pushFront(r)
			want, inBlk = append([]*simReq{r}, want...), append([]bool{false}, inBlk...)
		case op == 2 && len(want) > 0:
			if got := q.popFront(); got != want[0] {
				t.Fatalf("step %d: popFront %d, want %d", step, got.idx, want[0].idx)
			}
			want, inBlk = want[1:], inBlk[1:]
		case op == 3 && len(want) > 0 && rng.IntN(8) == 0:
			q.remove(want[len(want)/2])
			want = slices.Delete(want, len(want)/2, len(want)/2+1)
			inBlk = make([]bool, len(want))
		case op == 4:
			rs := make([]*simReq, 1+rng.IntN(20))
			for i := range rs {
				rs[i] = fresh()
			}
			q.pushFrontBlock(rs, 0, 0)
			if len(inBlk) == 0 || !inBlk[0] {
				clear(inBlk)
			}
			want = append(slices.Clone(rs), want...)
			inBlk = append(slices.Repeat([]bool{true}, len(rs)), inBlk...)
		case op == 5 && len(want) > 0:
			m := 1 + rng.IntN(len(want))
			got := q.popFrontTo(nil, m)
			if !slices.Equal(got, want[:m]) {
				t.Fatalf("step %d: popFrontTo %d differs", step, m)
			}
			want, inBlk = want[m:], inBlk[m:]
		}
		if got := slices.Collect(q.all()); !slices.Equal(got, want) {
			t.Fatalf("step %d: queue order differs", step)
		}
		first, n := slices.Index(inBlk, true), 0
		for _, b := range inBlk {
			if b {
				n++
			}
		}
		if n > 0 && (q.blkOff != first || q.blk != n || slices.Contains(inBlk[first:first+n], false)) {
			t.Fatalf("step %d: block at %d of %d, want %d of %d", step, q.blkOff, q.blk, first, n)
		}
		if n == 0 && q.blk != 0 {
			t.Fatalf("step %d: block of %d, want none", step, q.blk)
		}
	}
}
