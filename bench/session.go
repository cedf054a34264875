package bench

import "context"

// sessions is the client's session lock for multi-turn plans: a request
// whose plan names an earlier round it continues (PlannedRequest.After) is
// sent only once that round has finished, successfully or not, as
// inference-perf's user session holds a round until the previous one
// updated the context (apis/user_session.py: a failed or timed-out round
// releases the next with the old context). The simulator holds rounds the
// same way (engines/sim, the scheduler's successor map), so both run one
// plan.
type sessions struct {
	// finished[i] is closed once request i of the plan is done; nil when
	// no request waits for another.
	finished []chan struct{}
}

func newSessions(reqs []PlannedRequest) sessions {
	var s sessions
	for i := range reqs {
		if prev(reqs, i) >= 0 {
			s.finished = make([]chan struct{}, len(reqs))
			break
		}
	}
	for i := range s.finished {
		s.finished[i] = make(chan struct{})
	}
	return s
}

// prev is the position of the round request i continues, or -1. Only an
// earlier request of the same list counts: the plan sends in order, so
// that one has been dispatched (warm-ups carry the first request's -1).
func prev(reqs []PlannedRequest, i int) int {
	a := reqs[i].After
	if a < 0 || a >= i || reqs[a].Index != a {
		return -1
	}
	return a
}

// wait blocks until the round request i continues has finished, and
// reports false if ctx ended first (the request is then not sent). The
// wait is bounded by the previous round's own bounds (request timeout,
// stall timeout), the run's deadline and cancellation.
func (s sessions) wait(ctx context.Context, reqs []PlannedRequest, i int) bool {
	p := -1
	if s.finished != nil {
		p = prev(reqs, i)
	}
	if p < 0 {
		return ctx.Err() == nil
	}
	select {
	case <-s.finished[p]:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}

// done releases the round that continues request i.
func (s sessions) done(i int) {
	if s.finished != nil {
		close(s.finished[i])
	}
}
