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
}

// grow makes room for one more, doubling the buffer.
func (q *reqQueue) grow() {
	if q.n < len(q.buf) {
		return
	}
	buf := make([]*simReq, max(2*len(q.buf), 8))
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

// remove takes r out of the queue wherever it is (a live client's abort).
func (q *reqQueue) remove(r *simReq) {
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
