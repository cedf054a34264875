package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// ErrStopped ends the streams of a Live whose Run has returned.
var ErrStopped = errors.New("sim: engine stopped")

// Live is the simulator online, for `servetune sim serve`: requests join
// the same continuous-batching scheduler as Evaluate's, but as they
// arrive, and each step completes on the wall clock at simulated time ÷
// speed. One goroutine (Run) owns the scheduler; Submit and Stream talk to
// it through channels, so the model code needs no locks.
//
// The wall clock is the time package's, so tests drive it with
// testing/synctest instead of sleeping.
type Live struct {
	s     *setup
	plan  memPlan
	sc    *scheduler
	speed float64
	inbox chan liveMsg
	done  chan struct{}
	// streams maps the scheduler's requests to their clients; only Run
	// touches it.
	streams map[*simReq]*Stream
	origin  time.Time
	touched []*simReq
}

// LiveOptions tune a Live.
type LiveOptions struct {
	// Speed divides every simulated duration on the wall clock; ≤ 0 is 1.
	Speed float64
	// Seed draws the measurement-noise factor (t.Sim.NoiseCV).
	Seed int64
	// Launch carries the command line's non-knob arguments.
	Launch Launch
}

// LiveRequest is one request as the engine sees it.
type LiveRequest struct {
	Input, Output int
	// Prefix is how many leading prompt tokens the prefix cache may hold
	// (shared with an earlier prompt).
	Prefix int
	// Arrived is how many leading prompt tokens' KV a prefill server sent
	// (a decode server of a disaggregated deployment): held, not computed.
	Arrived int
}

type liveMsg struct {
	st    *Stream
	abort bool
}

// NewLive resolves cfg on t the way Evaluate does and fails the same way:
// an error wrapping *engines.Failure (OOM or InvalidConfig) carrying the
// engine's log lines.
func (sm *Simulator) NewLive(cfg space.Config, t space.Target, o LiveOptions) (*Live, error) {
	s, err := sm.resolve(cfg, t)
	if err != nil {
		return nil, err
	}
	if err := o.Launch.apply(s, cfg.Has("max_running"), cfg.Has("chunked_prefill")); err != nil {
		return nil, err
	}
	plan, err := s.plan()
	if err != nil {
		return nil, err
	}
	pf := newPerf(s, plan)
	if o.Speed <= 0 {
		o.Speed = 1
	}
	return &Live{
		s: s, plan: plan, speed: o.Speed,
		sc:      newScheduler(s, pf, plan, nil, bench.Profile{}, noiseFactor(o.Seed, t.Sim.NoiseCV)),
		inbox:   make(chan liveMsg),
		done:    make(chan struct{}),
		streams: map[*simReq]*Stream{},
	}, nil
}

// PlanLog is what the engine prints about its memory plan at startup.
func (l *Live) PlanLog() []string { return l.s.eng.rules.planLog(l.s, l.plan) }

// KVTokens is the KV cache size in tokens per rank.
func (l *Live) KVTokens() int { return l.plan.kvTokens }

// MaxRunning is the running-request cap per rank.
func (l *Live) MaxRunning() int { return l.s.maxRunning }

// MaxLen is the longest prompt + output a request may ask for: the
// model's context, or the KV cache when that is smaller.
func (l *Live) MaxLen() int {
	n := l.plan.kvTokens
	if c := l.s.model.MaxContext; c > 0 {
		n = min(n, c)
	}
	return n
}

// Run simulates until ctx ends, then fails every open stream with
// ErrStopped. Call it once.
func (l *Live) Run(ctx context.Context) {
	defer close(l.done)
	l.origin = time.Now()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer func() {
		for r, st := range l.streams {
			st.update(r.gen, true, ErrStopped)
		}
	}()
	for {
		var wake <-chan time.Time
		target, _, ok := l.sc.nextEvent()
		if ok {
			timer.Reset(time.Until(l.wall(target)))
			wake = timer.C
		}
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case m := <-l.inbox:
			l.advanceTo(l.simNow())
			if m.abort {
				l.abort(m.st)
			} else {
				l.admit(m.st)
			}
			l.startIdle()
		case <-wake:
			l.advanceTo(max(l.simNow(), target))
		}
		timer.Stop() // since Go 1.23 no stale tick survives Stop
	}
}

// Submit hands a request to the engine; its tokens arrive on the Stream.
// A request longer than MaxLen is refused, as the engine's front end
// refuses it.
func (l *Live) Submit(ctx context.Context, r LiveRequest) (*Stream, error) {
	if r.Input < 0 || r.Output < 1 {
		return nil, fmt.Errorf("sim: want input ≥ 0 and output ≥ 1 tokens, got %d and %d", r.Input, r.Output)
	}
	if n := r.Input + r.Output; n > l.MaxLen() {
		return nil, fmt.Errorf("sim: %d prompt + %d output tokens exceed the maximum length %d", r.Input, r.Output, l.MaxLen())
	}
	st := &Stream{l: l, req: r, wake: make(chan struct{}, 1)}
	select {
	case l.inbox <- liveMsg{st: st}:
		return st, nil
	case <-l.done:
		return nil, ErrStopped
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (l *Live) simNow() float64 { return time.Since(l.origin).Seconds() * l.speed }

// wall rounds up, so a timer never fires before its event's instant.
func (l *Live) wall(t float64) time.Time {
	return l.origin.Add(time.Duration(math.Ceil(t / l.speed * float64(time.Second))))
}

// advanceTo processes every event up to simulated time t in order, even
// when the goroutine woke late: the schedule stays the simulated one and
// only delivery lags.
func (l *Live) advanceTo(t float64) {
	sc := l.sc
	t = max(t, sc.now)
	for {
		l.startIdle()
		at, g, ok := sc.nextEvent()
		if !ok || at > t {
			break
		}
		sc.now = at
		if g != nil {
			l.finish(g)
		}
	}
	sc.now = t
}

func (l *Live) startIdle() {
	for _, g := range l.sc.groups {
		if !g.busy {
			l.sc.start(g)
		}
	}
}

// finish completes g's step and tells the clients of its requests.
func (l *Live) finish(g *group) {
	l.touched = l.touched[:0]
	for _, rk := range g.ranks {
		l.touched = append(l.touched, rk.running...)
	}
	l.sc.finish(g)
	// Offline the releases drive the client model; online the clients are
	// real.
	l.sc.releases = l.sc.releases[:0]
	for _, r := range l.touched {
		st := l.streams[r]
		if st == nil {
			continue
		}
		st.update(r.gen, r.done, nil)
		if r.done {
			delete(l.streams, r)
		}
	}
}

func (l *Live) admit(st *Stream) {
	sc := l.sc
	// An empty prompt still has the BOS token to prefill.
	in := max(st.req.Input, 1)
	r := &simReq{request: liveRequest(in, st.req.Output, st.req.Prefix), prompt: in}
	r.arrived = st.req.Arrived
	r.sent = sc.now
	// The whole request overhead on the way in: tokens are delivered the
	// moment their step ends, so TTFT matches Evaluate's half + half.
	r.visible = sc.now + 2*sc.halfRO
	st.r = r
	l.streams[r] = st
	sc.dispatch(r)
}

// abort drops a request the client gave up on, freeing its KV.
func (l *Live) abort(st *Stream) {
	r := st.r
	if r == nil || l.streams[r] == nil {
		return
	}
	delete(l.streams, r)
	for _, g := range l.sc.groups {
		for _, rk := range g.ranks {
			rk.waiting.remove(r)
			rk.pure = 0 // counted from the end: not after a removal
			rk.served.ok = false
			if n := len(rk.running); n > 0 {
				if rk.running = remove(rk.running, r); len(rk.running) < n {
					rk.kvUsed -= r.kv
				}
			}
		}
	}
	r.done = true
}

func remove(xs []*simReq, r *simReq) []*simReq {
	for i, x := range xs {
		if x == r {
			return append(xs[:i], xs[i+1:]...)
		}
	}
	return xs
}

// Stream is one request's output as the engine produces it.
type Stream struct {
	l   *Live
	req LiveRequest
	r   *simReq // owned by Run

	mu     sync.Mutex
	tokens int
	done   bool
	err    error
	wake   chan struct{} // holds one pending "changed"
}

func (st *Stream) update(tokens int, done bool, err error) {
	st.mu.Lock()
	st.tokens, st.done, st.err = tokens, done, err
	st.mu.Unlock()
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// Next blocks until more than seen tokens have been generated or the
// request has ended, and returns the total so far. Several tokens at once
// mean several steps passed since the last call, or speculative decoding.
func (st *Stream) Next(ctx context.Context, seen int) (tokens int, done bool, err error) {
	for {
		st.mu.Lock()
		tokens, done, err = st.tokens, st.done, st.err
		st.mu.Unlock()
		if tokens > seen || done {
			return tokens, done, err
		}
		select {
		case <-st.wake:
		case <-ctx.Done():
			return tokens, false, ctx.Err()
		}
	}
}

// Close abandons the request (the client went away); its KV is freed.
func (st *Stream) Close() {
	select {
	case st.l.inbox <- liveMsg{st: st, abort: true}:
	case <-st.l.done:
	}
}

// Memory is the engine's memory plan per GPU, for its startup log.
type Memory struct {
	TotalGiB, WeightsGiB, KVGiB float64
	// MemFraction is the effective fraction (the engine's default when
	// unset).
	MemFraction float64
}

// Memory reports the plan NewLive laid out.
func (l *Live) Memory() Memory {
	return Memory{TotalGiB: l.plan.total / gib, WeightsGiB: l.plan.weights / gib, KVGiB: l.plan.kv / gib, MemFraction: l.s.memFrac}
}

// ChunkedPrefill is the prefill token budget per step; 0 is unchunked.
func (l *Live) ChunkedPrefill() int { return l.s.chunk }

// liveRequest is a served request: its leading prefix tokens are the one
// prefix every request shares.
func liveRequest(in, out, prefix int) request {
	r := request{in: in, out: out, group: -1, after: -1, same: -1}
	if prefix = min(prefix, in); prefix > 0 {
		r.group, r.groupLen, r.shared = 0, prefix, prefix
	}
	return r
}
