package sim

import (
	"context"
	"math"

	"github.com/servetune/servetune/bench"
)

// pdServer is one server of a PD deployment: the aggregated scheduler
// over its ranks, driven by pdSim rather than by its own client.
type pdServer struct {
	sc   *scheduler
	node int
	// outstanding counts the requests routed to it and not yet done
	// here (the router's least-outstanding choice).
	outstanding int
}

// pdReq is one request's path through the deployment: the prefill copy
// (one output token), then the decode copy, which owns what the client
// sees.
type pdReq struct {
	request
	idx     int
	sent    float64
	pr, dr  *simReq
	pSrv    *pdServer
	prk     *rankState
	dSrv    *pdServer
	drk     *rankState
	ready   float64 // when the decode side may allocate (after prefill)
	xferEnd float64
	// hold is the reply's KV the decode rank reserved for it at the
	// transfer, until it joins the running batch.
	hold   int
	failed string
	done   bool
	finish float64
}

// pdSim is the discrete-event simulation of a disaggregated deployment
// on one simulated clock: the client (arrivals, concurrency cap,
// conversation rounds), the router (a FIFO queue of one server), the
// prefill servers (each request prefilled and its first token sampled,
// its KV held until it has been sent), the KV transfers (each decode
// rank receives one at a time, once its cache has room for the request:
// that is what throttles prefill when decode is full), and the decode
// servers (decode-only batches).
type pdSim struct {
	ps               *pdSetup
	prefill, decode  []*pdServer
	reqs             []*pdReq
	now, maxDur      float64
	cap, next, inflt int
	routerFree       float64
	releases         []float64
	successor        map[int]*pdReq
	deferred         []*pdReq
	waits            map[*rankState][]*pdReq // prefilled, waiting for the decode rank
	linkFree         map[*rankState]float64
	xfers            []*pdReq // in flight
	readyQ           map[*rankState][]*pdReq
	held             map[*rankState]int // reserved for transferred requests not yet running
	links            map[[2]int]kvLink
}

func newPDSim(ps *pdSetup, reqs []request, p bench.Profile, noise float64) *pdSim {
	d := &pdSim{ps: ps, cap: p.MaxConcurrency, successor: map[int]*pdReq{}, waits: map[*rankState][]*pdReq{},
		linkFree: map[*rankState]float64{}, readyQ: map[*rankState][]*pdReq{}, held: map[*rankState]int{}, links: map[[2]int]kvLink{}}
	if p.MaxDuration > 0 {
		d.maxDur = p.MaxDuration.Seconds()
	}
	for i := range ps.pd.PrefillCount {
		sc := newScheduler(ps.prefill, newPerf(ps.prefill, ps.pPlan), ps.pPlan, nil, bench.Profile{}, noise)
		d.prefill = append(d.prefill, &pdServer{sc: sc, node: ps.pNode[i]})
	}
	for i := range ps.pd.DecodeCount {
		sc := newScheduler(ps.decode, newPerf(ps.decode, ps.dPlan), ps.dPlan, nil, bench.Profile{}, noise)
		d.decode = append(d.decode, &pdServer{sc: sc, node: ps.dNode[i]})
	}
	for i, r := range reqs {
		d.reqs = append(d.reqs, &pdReq{request: r, idx: i})
	}
	return d
}

// run simulates until every request is done and returns the benchmark
// duration in seconds.
func (d *pdSim) run(ctx context.Context) (float64, error) {
	for i := 0; ; i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		d.startDue()
		if !d.tick() {
			break
		}
	}
	end := 0.0
	for _, r := range d.reqs {
		if r.done && r.failed == "" {
			end = max(end, r.finish)
		}
		if !r.done {
			r.done, r.failed, r.finish = true, d.unfinished(), d.now
		}
	}
	return end, nil
}

// unfinished is why a request still in flight when the simulation ends
// failed: the benchmark's max_duration, or (a simulator bug) no event
// left that could finish it.
func (d *pdSim) unfinished() string {
	if d.maxDur > 0 && d.now >= d.maxDur {
		return "sim: benchmark stopped at max_duration"
	}
	return "sim: request stalled in the disaggregated deployment (no event left to finish it)"
}

// startDue sends due requests, starts the transfers that can start and
// every idle rank group that has work.
func (d *pdSim) startDue() {
	d.send()
	for _, srv := range d.decode {
		for _, g := range srv.sc.groups {
			for _, rk := range g.ranks {
				d.startTransfers(srv, rk)
			}
		}
	}
	for _, srv := range d.prefill {
		for _, g := range srv.sc.groups {
			if !g.busy {
				srv.sc.start(g)
			}
		}
	}
	for _, srv := range d.decode {
		for _, g := range srv.sc.groups {
			if !g.busy {
				for _, rk := range g.ranks {
					d.join(srv, rk)
				}
				srv.sc.start(g)
			}
		}
	}
}

// tick moves the clock to the next event and applies it.
func (d *pdSim) tick() bool {
	t := d.nextEvent()
	if math.IsInf(t, 1) {
		return false
	}
	if d.maxDur > 0 && t > d.maxDur {
		d.setNow(d.maxDur)
		return false
	}
	d.setNow(t)
	for _, srv := range d.prefill {
		for _, g := range srv.sc.groups {
			if g.busy && g.until <= t {
				d.finishStep(srv, g, d.prefilled)
			}
		}
	}
	for _, srv := range d.decode {
		for _, g := range srv.sc.groups {
			if g.busy && g.until <= t {
				d.finishStep(srv, g, d.decoded)
			}
		}
	}
	d.endTransfers()
	return true
}

func (d *pdSim) setNow(t float64) {
	d.now = t
	for _, srv := range d.prefill {
		srv.sc.now = t
	}
	for _, srv := range d.decode {
		srv.sc.now = t
	}
}

// nextEvent is the earliest pending event of the client, any server,
// any transfer, or a prefilled request becoming allocatable.
func (d *pdSim) nextEvent() float64 {
	t := math.Inf(1)
	for _, pool := range [][]*pdServer{d.prefill, d.decode} {
		for _, srv := range pool {
			if e, _, ok := srv.sc.nextEvent(); ok {
				t = min(t, e)
			}
		}
	}
	for _, q := range d.xfers {
		t = min(t, q.xferEnd)
	}
	for _, w := range d.waits {
		if len(w) > 0 && w[0].ready > d.now {
			t = min(t, w[0].ready)
		}
	}
	for _, r := range d.deferred {
		t = min(t, max(r.sent, d.now))
	}
	if d.next < len(d.reqs) {
		if d.cap == 0 || d.inflt < d.cap {
			t = min(t, max(d.reqs[d.next].arrival, d.now))
		}
		for _, rt := range d.releases {
			t = min(t, max(rt, d.reqs[d.next].arrival))
		}
	}
	return t
}

// finishStep applies a completed step of srv and hands every request it
// finished to done.
func (d *pdSim) finishStep(srv *pdServer, g *group, done func(*pdServer, *rankState, *simReq)) {
	var ran [][]*simReq
	for _, rk := range g.ranks {
		ran = append(ran, append([]*simReq(nil), rk.running...))
	}
	srv.sc.finish(g)
	srv.sc.releases = srv.sc.releases[:0] // the client's slots are pdSim's
	for i, rk := range g.ranks {
		for _, r := range ran[i] {
			if r.done {
				done(srv, rk, r)
			}
		}
	}
}
