package sim

import "iter"

// reqQueue is a rank's waiting queue: a ring buffer, so that a preempted
// request goes back to the front in O(1). A slice prepended to cost
// O(waiting) per preemption, quadratic in the requests queued at a high
// concurrency (16,000 requests at 8,192 spent nearly all their time
// copying the queue).
type reqQueue struct {
	// buf's length is 0 or a power of two (grow doubles from 8), so an
	// index wraps with a mask instead of a division.
	buf  []*simReq
	head int // index of the front in buf
	n    int
	// blk requests after the first blkOff form a block that admission may
	// take whole (admitBlock in sched.go): prompts makeRoom preempted
	// before any step served them, each of whose admission checks pass
	// whatever the cache holds, each prompt at most blkNeed tokens and
	// visible by blkVis. 0 when there is none; the block only shrinks
	// (its bounds stay bounds) as requests leave it.
	blkOff, blk int
	blkNeed     int
	blkVis      float64
}

// len is how many requests wait.
func (q *reqQueue) len() int { return q.n }

// front is the first request; the queue must not be empty.
func (q *reqQueue) front() *simReq { return q.buf[q.head] }

// at is the i-th request from the front.
func (q *reqQueue) at(i int) *simReq { return q.buf[(q.head+i)&(len(q.buf)-1)] }

// popFront removes the first request; the queue must not be empty.
func (q *reqQueue) popFront() *simReq {
	r := q.buf[q.head]
	q.buf[q.head] = nil
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	if q.blkOff > 0 {
		q.blkOff--
	} else if q.blk > 0 {
		q.blk--
	}
	return r
}

// pushBack queues r last.
func (q *reqQueue) pushBack(r *simReq) {
	q.grow()
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = r
	q.n++
}

// pushFront queues r first.
func (q *reqQueue) pushFront(r *simReq) {
	q.grow()
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = r
	q.n++
	if q.blk > 0 {
		q.blkOff++
	}
}

// pushFrontBlock queues rs first, in order, as a block (need and vis
// bound their prompts and visibility), joined with the block that was
// first if there was one.
func (q *reqQueue) pushFrontBlock(rs []*simReq, need int, vis float64) {
	k := len(rs)
	q.reserve(k)
	mask := len(q.buf) - 1
	q.head = (q.head - k) & mask
	// rs lands at head, wrapping past the end of buf at most once.
	c := copy(q.buf[q.head:], rs)
	copy(q.buf, rs[c:])
	q.n += k
	if q.blk > 0 {
		if q.blkOff == 0 { // the block was first: rs joins it
			q.blk += k
			q.blkNeed, q.blkVis = max(q.blkNeed, need), max(q.blkVis, vis)
			return
		}
	}
	q.blkOff, q.blk, q.blkNeed, q.blkVis = 0, k, need, vis
}

// popFrontTo moves the first m requests (m <= len) to the end of dst,
// as m popFronts would.
func (q *reqQueue) popFrontTo(dst []*simReq, m int) []*simReq {
	end := min(q.head+m, len(q.buf))
	dst = append(dst, q.buf[q.head:end]...)
	clear(q.buf[q.head:end])
	if rest := m - (end - q.head); rest > 0 {
		dst = append(dst, q.buf[:rest]...)
		clear(q.buf[:rest])
	}
	q.head = (q.head + m) & (len(q.buf) - 1)
	q.n -= m
	a := min(q.blkOff, m)
	q.blkOff -= a
	q.blk -= min(q.blk, m-a)
	return dst
}

// grow makes room for one more, doubling the buffer.
func (q *reqQueue) grow() { q.reserve(1) }

// reserve makes room for k more, doubling the buffer as often as needed.
func (q *reqQueue) reserve(k int) {
	if q.n+k <= len(q.buf) {
		return
	}
	size := max(len(q.buf), 8)
	for size < q.n+k {
		size *= 2
	}
	buf := make([]*simReq, size)
	for i := range q.n {
		buf[i] = q.at(i)
	}
	q.buf, q.head = buf, 0
}

// all yields the requests front to back.
func (q *reqQueue) all() iter.Seq[*simReq] {
	return func(yield func(*simReq) bool) {
		for i := range q.n {
			if !yield(q.at(i)) {
				return
			}
		}
	}
}

// remove takes r out of the queue wherever it is (a live client's abort);
// the block is forgotten.
func (q *reqQueue) remove(r *simReq) {
	q.blkOff, q.blk = 0, 0
	for i := range q.n {
		if q.at(i) != r {
			continue
		}
		for j := i; j < q.n-1; j++ {
			q.buf[(q.head+j)&(len(q.buf)-1)] = q.at(j + 1)
		}
		q.buf[(q.head+q.n-1)&(len(q.buf)-1)] = nil
		q.n--
		return
	}
}
