package sim

import (
	"fmt"
	"math"

	"github.com/servetune/servetune/bench"
)

// send releases requests whose arrival has come, within the client's
// cap, through the router to a prefill server.
func (d *pdSim) send() {
	keep := d.releases[:0]
	for _, t := range d.releases {
		if t <= d.now {
			d.inflt--
		} else {
			keep = append(keep, t)
		}
	}
	d.releases = keep
	dk := d.deferred[:0]
	for _, r := range d.deferred {
		if r.sent > d.now {
			dk = append(dk, r)
			continue
		}
		d.route(r)
	}
	clear(d.deferred[len(dk):])
	d.deferred = dk
	for d.next < len(d.reqs) && (d.cap == 0 || d.inflt < d.cap) && d.reqs[d.next].arrival <= d.now {
		r := d.reqs[d.next]
		d.next++
		d.inflt++
		if r.after >= 0 && !d.reqs[r.after].done {
			d.successor[r.after] = r // the next round waits for this one
			continue
		}
		r.sent = max(r.arrival, d.now)
		d.route(r)
	}
}

// route queues the request at the router (one FIFO server) and sends it
// to the least-loaded prefill server, pairing it with the least-loaded
// decode server and rank, as SGLang's router pairs both at arrival. A
// request that either side's cache could never hold fails at once, as
// the engines refuse it.
func (d *pdSim) route(r *pdReq) {
	d.routerFree = max(d.routerFree, r.sent) + d.ps.router
	r.pSrv, r.dSrv = leastOutstanding(d.prefill), leastOutstanding(d.decode)
	r.drk = leastLoadedRank(r.dSrv, d.waits)
	if r.in+1 > d.ps.pPlan.kvTokens {
		d.fail(r, fmt.Sprintf("sim: prefill server's KV cache (%d tokens) cannot hold the %d-token prompt", d.ps.pPlan.kvTokens, r.in))
		return
	}
	if r.in+r.out > d.ps.dPlan.kvTokens {
		d.fail(r, fmt.Sprintf("sim: decode server's KV cache (%d tokens) cannot hold the request's %d tokens", d.ps.dPlan.kvTokens, r.in+r.out))
		return
	}
	r.pSrv.outstanding++
	r.dSrv.outstanding++
	pr := &simReq{request: request{in: r.in, out: 1, group: r.group, groupLen: r.groupLen, shared: -1, after: -1}, idx: r.idx, prompt: r.in}
	pr.sent = r.sent
	pr.visible = d.routerFree + r.pSrv.sc.inOverhead(pr)
	r.pr = pr
	r.pSrv.sc.dispatch(pr)
}

// leastOutstanding is the server with the fewest requests in flight,
// the first on ties.
func leastOutstanding(srvs []*pdServer) *pdServer {
	best := srvs[0]
	for _, s := range srvs[1:] {
		if s.outstanding < best.outstanding {
			best = s
		}
	}
	return best
}

// leastLoadedRank is the decode rank with the least work, counting the
// requests already paired with it.
func leastLoadedRank(srv *pdServer, waits map[*rankState][]*pdReq) *rankState {
	var best *rankState
	bestLoad := math.MaxInt
	for _, g := range srv.sc.groups {
		for _, rk := range g.ranks {
			if l := len(rk.running) + rk.waiting.len() + len(waits[rk]); l < bestLoad {
				best, bestLoad = rk, l
			}
		}
	}
	return best
}

// prefilled holds a request's KV on its prefill rank and queues it for
// its decode rank; vLLM's proxy sends the decode request only now, which
// costs the decode server's own request overhead.
func (d *pdSim) prefilled(srv *pdServer, rk *rankState, pr *simReq) {
	r := d.reqs[pr.idx]
	rk.kvUsed += pr.kv // held until sent (finish freed it)
	srv.outstanding--
	r.prk = rk
	r.ready = d.now
	if d.ps.handoff {
		r.ready += r.dSrv.sc.inOverhead(pr)
	}
	d.waits[r.drk] = append(d.waits[r.drk], r)
}

// startTransfers starts, in order, the transfers to decode rank rk that
// its cache has room for: the decode side allocates the whole prompt
// (and SGLang's reservation for the reply) before the KV is written. The
// reservations of requests transferred but not yet running count too
// (held), or the transferred prompts fill the cache and the running
// requests preempt each other as their replies grow.
func (d *pdSim) startTransfers(srv *pdServer, rk *rankState) {
	w := d.waits[rk]
	sc := srv.sc
	for len(w) > 0 && w[0].ready <= d.now {
		r := w[0]
		hold := int(sc.s.eng.reserve * float64(r.out-1))
		if sc.committed(rk)+d.held[rk]+r.in+hold > rk.kvCap {
			break
		}
		w = w[1:]
		rk.kvUsed += r.in
		d.held[rk] += hold
		r.hold = hold
		start := max(d.now, d.linkFree[rk])
		r.xferEnd = start + d.link(r.pSrv, srv).seconds(r.in)
		d.linkFree[rk] = r.xferEnd
		d.xfers = append(d.xfers, r)
	}
	d.waits[rk] = w
}

// link is the KV link between two servers, by whether they share a node.
func (d *pdSim) link(p, dec *pdServer) kvLink {
	key := [2]int{p.node, dec.node}
	l, ok := d.links[key]
	if !ok {
		l = kvGeometry(d.ps.prefill, d.ps.decode, linkGBs(d.ps.prefill.gpu, p.node != dec.node))
		d.links[key] = l
	}
	return l
}

// endTransfers applies the transfers that have completed: the prefill
// rank frees the KV, the decode rank has it and the request may join
// its batch.
func (d *pdSim) endTransfers() {
	keep := d.xfers[:0]
	for _, r := range d.xfers {
		if r.xferEnd > d.now {
			keep = append(keep, r)
			continue
		}
		r.prk.kvUsed -= r.pr.kv
		d.arrive(r)
	}
	clear(d.xfers[len(keep):])
	d.xfers = keep
}

// arrive makes a transferred request's decode copy: its prompt is in the
// cache, its first token (sampled by prefill) is generated. A one-token
// reply is done here.
func (d *pdSim) arrive(r *pdReq) {
	dr := &simReq{request: request{in: r.in, out: r.out, group: -1, shared: -1, after: -1}, idx: r.idx,
		prompt: r.in, prefilled: r.in, kv: r.in, gen: 1, sent: r.sent}
	r.dr = dr
	if r.out <= 1 {
		d.held[r.drk] -= r.hold
		r.drk.kvUsed -= dr.kv
		dr.first = d.now + r.dSrv.sc.outOverhead()
		dr.finish, dr.done = dr.first, true
		d.decoded(r.dSrv, r.drk, dr)
		return
	}
	d.readyQ[r.drk] = append(d.readyQ[r.drk], r)
}

// join moves transferred requests into rank rk's running batch while
// max_running allows (requests it preempted go first, unless nothing
// runs: then the transferred requests' KV, already in the cache, could
// leave no room for a preempted one to recompute, and neither queue
// would ever move); the first token reaches the client when the step
// that takes it in starts.
func (d *pdSim) join(srv *pdServer, rk *rankState) {
	q := d.readyQ[rk]
	for len(q) > 0 && (rk.waiting.len() == 0 || len(rk.running) == 0) && len(rk.running) < srv.sc.s.maxRunning {
		dr := q[0].dr
		d.held[rk] -= q[0].hold // running now: the scheduler's reserve counts it
		q = q[1:]
		dr.first = d.now + srv.sc.outOverhead()
		dr.last = dr.first
		rk.running = append(rk.running, dr)
		rk.tail = len(rk.running) // it decodes: no unserved tail behind it
		rk.pure = 0
		rk.served.ok = false
	}
	d.readyQ[rk] = q
}

// decoded finishes a request at the client.
func (d *pdSim) decoded(srv *pdServer, _ *rankState, dr *simReq) {
	r := d.reqs[dr.idx]
	srv.outstanding--
	r.done, r.finish, r.failed = true, dr.finish, dr.failed
	d.release(r)
}

func (d *pdSim) fail(r *pdReq, msg string) {
	r.done, r.failed, r.finish = true, msg, d.now
	d.release(r)
}

// release frees the client's slot when the last chunk arrives and lets
// the conversation's next round go.
func (d *pdSim) release(r *pdReq) {
	d.releases = append(d.releases, r.finish)
	if next, ok := d.successor[r.idx]; ok {
		delete(d.successor, r.idx)
		next.sent = max(next.arrival, r.finish)
		d.deferred = append(d.deferred, next)
	}
}

// records are the client's view, as the aggregated scheduler's.
func (d *pdSim) records() []bench.Record {
	out := make([]bench.Record, len(d.reqs))
	for i, r := range d.reqs {
		rec := bench.Record{Index: i, InputTokens: r.in, Start: seconds(r.sent)}
		if r.failed != "" || r.dr == nil {
			rec.Error = r.failed
			rec.Latency = seconds(r.finish) - rec.Start
		} else {
			rec.Success = true
			rec.OutputTokens = r.dr.gen
			rec.TTFT = seconds(r.dr.first) - rec.Start
			rec.Latency = seconds(r.finish) - rec.Start
			rec.ITL = r.dr.itl
		}
		out[i] = rec
	}
	return out
}
