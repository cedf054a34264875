package sim

import (
	"context"
	"math"
	"time"

	"github.com/servetune/servetune/bench"
)

// simReq is a request's life inside the simulated engine.
//
// The fields that a step's walk, admission and preemption read come
// first and together, the request's shape (which admission also reads)
// right after them: at thousands of requests they no longer fit the
// cache, and each line a visit touches is a miss (issue 49).
type simReq struct {
	gen int
	// prompt is what must be in KV before decoding: the input, plus tokens
	// generated before a preemption (recompute).
	prompt    int
	prefilled int
	kv        int
	portion   int     // prefill tokens scheduled in the current step
	acc       float64 // fractional accepted tokens carried between steps
	done      bool
	visible   float64 // when the scheduler sees it (after HTTP + tokenise)
	// The request's shape follows: a decode step reads its out.
	request
	cached int     // prompt tokens served from the prefix cache
	pinned int     // leading blocks it uses in the block cache (prefix_blocks.go)
	text   float64 // text chunks owed to the client (TokensPerChunk)
	tr     *reqTrace
	last   float64
	itl    []time.Duration
	// continued: a later round of the conversation continues it.
	continued bool
	first     float64
	finish    float64
	idx       int
	sent      float64 // client send time
	failed    string
}

type rankState struct {
	waiting reqQueue
	running []*simReq
	// tail marks where the running requests no step has served yet begin:
	// every running[tail:] is still prefilling with no tokens scheduled
	// (admitted in order, served in order by the chunked-prefill budget),
	// so a step neither counts nor advances them — it walks running[:tail]
	// and only as far into the tail as the budget reaches. len(running)
	// (or more, after a removal) when there is no such tail.
	tail int
	// pure counts the last running requests that are pure (see pure):
	// prompts no step has served, holding nothing, whose admission checks
	// pass whatever the cache holds; pureNeed and pureVis bound their
	// prompts and visibility. makeRoom moves them back to the waiting
	// queue as a block (reqQueue.blk) without touching them, and admit
	// takes such a block whole: at thousands of clients vLLM admits and
	// preempts the same prompts ~130 times each (issue 49). Always at
	// most len(running) - tail.
	pure       int
	pureNeed   int
	pureVis    float64
	kvUsed     int
	kvCap      int
	cache      *prefixCache
	prefilling bool // current step is a prefill step (SGLang style)
	// served is what finish learnt of running[:tail] while it walked them,
	// for the batch after it, so a step walks its running requests once,
	// not twice (issue 49). Only the scheduler's admission of a decoder
	// and the code outside the loop that changes running (a live abort, a
	// disaggregated join) move running[:tail] in between: they drop it.
	served servedSums
}

// servedSums is what batch's first pass computes over running[:tail]:
// the decoders, their summed context, and whether a served request is
// still prefilling; ok once finish has computed it for the batch next.
type servedSums struct {
	ok         bool
	decodeSeqs int
	ctx        int
	pending    bool
}

type group struct {
	ranks []*rankState
	busy  bool
	from  float64
	until float64
	feat  feat // the step in flight's features (vLLM model)
	loads []rankLoad
	// decodeOnly remembers the kind of the step in flight.
	decodeOnly bool
}

// scheduler runs the continuous-batching simulation on a simulated clock.
type scheduler struct {
	s      *setup
	pf     *perf
	plan   memPlan
	reqs   []*simReq
	groups []*group
	noise  float64
	cap    int // client max concurrency; 0 = unlimited
	maxDur float64
	// halfRO is half the per-request overhead: once on the way in, once on
	// the way out.
	halfRO   float64
	next     int
	inflight int
	// releases are client-side completion times not yet processed: the
	// client frees a concurrency slot when the last chunk reaches it.
	releases []float64
	// successor is the next round of a conversation, held by the client
	// until the round it continues (the key) has finished; deferred are
	// successors whose send time is known.
	successor map[int]*simReq
	deferred  []*simReq
	tracing   bool
	stepSum   feat    // Σ step features (traced)
	busy      float64 // Σ step durations (traced)
	rr        int
	now       float64
	off       *offloads // CPU KV offload (offload.go); nil without
	// noGaps: the records carry no inter-token gaps (Simulator.NoGaps).
	noGaps bool
}

func newScheduler(s *setup, pf *perf, plan memPlan, reqs []request, p bench.Profile, noise float64) *scheduler {
	return newSchedulerGaps(s, pf, plan, reqs, p, noise, true)
}

// newSchedulerGaps is newScheduler whose records carry the inter-token
// gaps only if gaps is set.
func newSchedulerGaps(s *setup, pf *perf, plan memPlan, reqs []request, p bench.Profile, noise float64, gaps bool) *scheduler {
	sc := &scheduler{s: s, pf: pf, plan: plan, noise: noise, cap: p.MaxConcurrency, halfRO: s.eng.requestOverhead / 2, off: newOffloads(s, plan), noGaps: !gaps}
	if p.MaxDuration > 0 {
		sc.maxDur = p.MaxDuration.Seconds()
	}
	sc.reqs = make([]*simReq, len(reqs))
	// One array of requests and one of inter-token gaps: the event loop
	// walks the running requests every step, and a benchmark's million
	// gaps appended one by one dominated its allocations.
	all := make([]simReq, len(reqs))
	total := 0
	for _, r := range reqs {
		if gaps {
			total += max(r.out, 0)
		}
	}
	itl := make([]time.Duration, 0, total)
	for i, r := range reqs {
		n := 0
		if gaps {
			n = max(r.out, 0)
		}
		all[i] = simReq{request: r, idx: i, prompt: r.in, itl: itl[:0:n]}
		itl = itl[n:n:cap(itl)]
		sc.reqs[i] = &all[i]
		if r.after >= 0 && r.after < i {
			sc.reqs[r.after].continued = true
		}
	}
	nRanks := s.dp
	if s.eng.oneQueue {
		nRanks = 1
	}
	sc.successor = map[int]*simReq{}
	mk := func() *rankState { return &rankState{kvCap: plan.kvTokens, cache: newPrefixCache()} }
	if s.dpAttn {
		g := &group{}
		for range nRanks {
			g.ranks = append(g.ranks, mk())
		}
		sc.groups = []*group{g}
	} else {
		for range nRanks {
			sc.groups = append(sc.groups, &group{ranks: []*rankState{mk()}})
		}
	}
	for _, g := range sc.groups {
		g.loads = make([]rankLoad, len(g.ranks))
	}
	return sc
}

// run simulates until every request is done and returns the benchmark
// duration in seconds.
func (sc *scheduler) run(ctx context.Context) (float64, error) {
	for i := 0; sc.step(); i++ {
		if i%4096 == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	end := 0.0
	for _, r := range sc.reqs {
		if r.done && r.failed == "" {
			end = max(end, r.finish)
		}
		if !r.done {
			r.done, r.failed, r.finish = true, "sim: benchmark stopped at max_duration", sc.now
		}
	}
	return end, nil
}

// step sends what is due, starts idle groups and advances the clock to
// the next event; false once nothing is left to happen.
func (sc *scheduler) step() bool {
	sc.startDue()
	return sc.tick()
}

// startDue sends due requests and starts a step on every idle group
// that has work.
func (sc *scheduler) startDue() {
	sc.send()
	for _, g := range sc.groups {
		if !g.busy {
			sc.start(g)
		}
	}
}

// tick moves the clock to the next event and applies it.
func (sc *scheduler) tick() bool {
	t, g, ok := sc.nextEvent()
	if !ok {
		return false
	}
	if sc.maxDur > 0 && t > sc.maxDur {
		sc.now = sc.maxDur
		return false
	}
	sc.now = t
	if g != nil {
		sc.finish(g)
	}
	return true
}

// send releases requests whose arrival time has come, within the cap.
func (sc *scheduler) send() {
	keep := sc.releases[:0]
	for _, t := range sc.releases {
		if t <= sc.now {
			sc.inflight--
		} else {
			keep = append(keep, t)
		}
	}
	sc.releases = keep
	sc.sendDeferred()
	for sc.next < len(sc.reqs) && (sc.cap == 0 || sc.inflight < sc.cap) && sc.reqs[sc.next].arrival <= sc.now {
		r := sc.reqs[sc.next]
		sc.next++
		sc.inflight++
		if r.after >= 0 && !sc.reqs[r.after].done {
			sc.successor[r.after] = r
			continue
		}
		r.sent = max(r.arrival, sc.now)
		r.visible = r.sent + sc.inOverhead(r)
		sc.dispatch(r)
	}
}

// sendDeferred sends held conversation rounds whose time has come.
func (sc *scheduler) sendDeferred() {
	keep := sc.deferred[:0]
	for _, r := range sc.deferred {
		if r.sent > sc.now {
			keep = append(keep, r)
			continue
		}
		r.visible = r.sent + sc.inOverhead(r)
		sc.dispatch(r)
	}
	clear(sc.deferred[len(keep):])
	sc.deferred = keep
}

// released lets the round that continues r go once the client has r's
// last token (or its failure).
func (sc *scheduler) released(r *simReq) {
	if next, ok := sc.successor[r.idx]; ok {
		delete(sc.successor, r.idx)
		next.sent = max(next.arrival, r.finish)
		sc.deferred = append(sc.deferred, next)
	}
}

// dispatch picks the rank with the least work, round-robin on ties (the
// DP controller's load balancing).
func (sc *scheduler) dispatch(r *simReq) {
	var best *rankState
	bestLoad := math.MaxInt
	n := 0
	for _, g := range sc.groups {
		n += len(g.ranks)
	}
	sc.rr++
	i := 0
	for _, g := range sc.groups {
		for _, rk := range g.ranks {
			load := rk.waiting.len() + len(rk.running)
			// Rotate the starting point so ties spread evenly.
			if load < bestLoad || (load == bestLoad && (i-sc.rr%n+n)%n == 0) {
				best, bestLoad = rk, load
			}
			i++
		}
	}
	best.waiting.pushBack(r)
}

// nextEvent is the earliest pending event: a step completion (group
// returned), a request becoming visible, an arrival, or a client slot
// freeing for the next arrival.
func (sc *scheduler) nextEvent() (float64, *group, bool) {
	t := math.Inf(1)
	var which *group
	for _, g := range sc.groups {
		if g.busy && g.until < t {
			t, which = g.until, g
		}
		if !g.busy {
			for _, rk := range g.ranks {
				if rk.waiting.len() > 0 && rk.waiting.front().visible > sc.now && rk.waiting.front().visible < t {
					t, which = rk.waiting.front().visible, nil
				}
			}
		}
	}
	for _, r := range sc.deferred {
		if r.sent < t {
			t, which = max(r.sent, sc.now), nil
		}
	}
	if sc.next < len(sc.reqs) {
		if sc.cap == 0 || sc.inflight < sc.cap {
			if a := max(sc.reqs[sc.next].arrival, sc.now); a < t {
				t, which = a, nil
			}
		}
		// A freed slot matters only once the next request has arrived;
		// the candidate must still be the earliest event, or a later
		// arrival would pre-empt an earlier step completion.
		for _, rt := range sc.releases {
			if c := max(rt, sc.reqs[sc.next].arrival); c < t {
				t, which = c, nil
			}
		}
	}
	return t, which, !math.IsInf(t, 1)
}

// start forms each rank's batch and schedules the step's completion.
func (sc *scheduler) start(g *group) {
	work := false
	decodeOnly := true
	cutoff := sc.admitCutoff(g)
	for i, rk := range g.ranks {
		sc.admit(rk, cutoff)
		g.loads[i] = sc.batch(rk)
		if g.loads[i].prefill > 0 {
			decodeOnly = false
		}
		if g.loads[i].tokens(1) > 0 {
			work = true
		}
	}
	if !work {
		return
	}
	dt, f := sc.pf.step(g.loads, decodeOnly)
	dt *= sc.noise
	g.busy, g.from, g.until, g.decodeOnly, g.feat = true, sc.now, sc.now+dt, decodeOnly, f
}

// admitCutoff is the latest time a request may have become visible to
// join the step starting now. vLLM schedules asynchronously (the default
// since v0.13): step n+1 is scheduled while step n runs, so a request that
// arrives during step n waits for step n+2 — when a step follows another
// back to back, only requests visible when the previous one started are
// admitted. An idle engine schedules at once.
func (sc *scheduler) admitCutoff(g *group) float64 {
	if !sc.s.eng.asyncScheduling || g.until != sc.now || g.from >= sc.now {
		return sc.now
	}
	for _, rk := range g.ranks {
		if len(rk.running) > 0 {
			return g.from
		}
	}
	return sc.now
}

// admit moves waiting requests visible by cutoff into the running set
// while the running cap and the KV cache allow.
func (sc *scheduler) admit(rk *rankState, cutoff float64) {
	s := sc.s
	// What the running requests reserve does not change while requests
	// join: it is summed once, not once per request admitted.
	reserved := -1
	rk.clampPure()
	for rk.waiting.len() > 0 && len(rk.running) < s.maxRunning {
		if sc.admitBlock(rk, cutoff) {
			continue
		}
		r := rk.waiting.front()
		if r.visible > cutoff {
			return
		}
		cached, owned := 0, 0
		if s.prefixCache {
			cached, owned = rk.cache.peek(r)
		}
		// The previous round's blocks leave the free pool when reused: they
		// count against it like new ones.
		need := r.prompt - cached + owned
		if r.in+r.out > rk.kvCap {
			rk.waiting.popFront()
			sc.fail(r, "sim: request needs more KV cache than the engine has")
			continue
		}
		own := need + int(s.eng.reserve*float64(r.out-r.gen))
		if rk.kvUsed+own > rk.kvCap {
			return // full without what the others reserve (≥ 0): no walk over them
		}
		if reserved < 0 {
			reserved = sc.reserved(rk)
		}
		if rk.kvUsed+reserved+own > rk.kvCap {
			return
		}
		rk.waiting.popFront()
		if owned > 0 {
			rk.cache.take(r.after)
		}
		r.cached = cached
		r.prefilled = cached
		sc.blocksAdmitted(rk, r)
		arrive(rk, r)                        // live_pd.go
		r.prefilled += sc.off.restore(rk, r) // KV spilled to host at preemption
		r.kv += owned
		rk.kvUsed += owned
		rk.cache.evict(rk.kvUsed, rk.kvCap)
		rk.running = append(rk.running, r)
		if r.prefilled >= r.prompt {
			rk.tail = len(rk.running) // a decoder ends the unserved tail
			rk.served.ok = false
		}
		if sc.pure(rk, r, cached, owned) {
			rk.pure++
			rk.pureNeed, rk.pureVis = max(rk.pureNeed, r.prompt), max(rk.pureVis, r.visible)
		} else {
			rk.pure = 0
			rk.clampPure()
		}
		reserved += sc.reserve(r)
	}
}

// blockPreemption lets makeRoom and admit move pure requests as blocks;
// TestBlockPreemptionChangesNothing turns it off to compare, and counts
// the requests admitted in blocks in blockAdmissions.
var (
	blockPreemption = true
	blockAdmissions int
)

// admitBlock admits the waiting queue's block (reqQueue.blk) whole when
// it is first, as many of it as max_running allows, and reports whether
// it did. Admitting them one by one would pass each the checks its
// bounds pass: visible by the cutoff, no prefix-cache hit (pure), fits
// the cache (kvUsed + its prompt, with no reserve: vLLM), and change
// nothing but running — they hold nothing, stay unserved, and the cache
// eviction that each admission runs gives the same the second time.
func (sc *scheduler) admitBlock(rk *rankState, cutoff float64) bool {
	q := &rk.waiting
	if q.blk == 0 || q.blkOff > 0 || sc.s.eng.reserve != 0 || q.blkVis > cutoff || rk.kvUsed+q.blkNeed > rk.kvCap {
		return false
	}
	m := min(q.blk, sc.s.maxRunning-len(rk.running))
	if m <= 0 {
		return false
	}
	rk.clampPure()
	need, vis := q.blkNeed, q.blkVis
	blockAdmissions += m
	rk.running = q.popFrontTo(rk.running, m)
	rk.cache.evict(rk.kvUsed, rk.kvCap)
	rk.pure += m
	rk.pureNeed, rk.pureVis = max(rk.pureNeed, need), max(rk.pureVis, vis)
	return true
}

// pure reports whether r, just admitted with cached and owned as peeked,
// is pure: a prompt holding no KV and taking none (no cache hit, no
// previous round's blocks, none pinned, none arrived from a prefill
// server or restored from the host), which makeRoom's preemption would
// leave as it is (0 < prompt = in + gen), and whose admission checks give
// the same whatever the prefix cache holds (it never fails for size; a
// recompute, or a prompt the cache cannot serve).
func (sc *scheduler) pure(rk *rankState, r *simReq, cached, owned int) bool {
	if !blockPreemption {
		return false
	}
	if cached != 0 || owned != 0 || r.kv != 0 || r.prefilled != 0 || r.pinned != 0 || r.portion != 0 {
		return false
	}
	if r.prompt <= 0 || r.prompt != r.in+r.gen || r.in+r.out > rk.kvCap {
		return false
	}
	if r.gen > 0 {
		return true // peek and arrive skip a recompute
	}
	return min(r.arrived, r.prompt-1) <= 0 &&
		(!sc.s.prefixCache || (r.after < 0 && r.same < 0 && r.group < 0 && len(r.blocks) == 0))
}

// clampPure keeps the pure requests behind the served ones (tail), for
// the code that changes running without counting them.
func (rk *rankState) clampPure() {
	rk.pure = min(rk.pure, len(rk.running)-min(rk.tail, len(rk.running)))
	if rk.pure <= 0 {
		rk.pure, rk.pureNeed, rk.pureVis = 0, 0, math.Inf(-1)
	}
}

// committed is KV in use plus what admitted requests have reserved.
func (sc *scheduler) committed(rk *rankState) int { return rk.kvUsed + sc.reserved(rk) }

// reserved is what admitted requests have reserved beyond the KV they
// use: the KV committed is rk.kvUsed plus this.
func (sc *scheduler) reserved(rk *rankState) int {
	c := 0
	if sc.s.eng.reserve > 0 {
		for _, r := range rk.running {
			c += sc.reserve(r)
		}
	}
	return c
}

// reserve is what running request r holds back: the rest of its prompt
// and the engine's share of the reply still to come.
func (sc *scheduler) reserve(r *simReq) int {
	res := sc.s.eng.reserve
	if res <= 0 {
		return 0
	}
	return r.prompt - r.prefilled + int(res*float64(r.out-r.gen))
}

// batch decides what one rank computes this step.
func (sc *scheduler) batch(rk *rankState) rankLoad {
	var l rankLoad
	budget := sc.s.chunk
	if budget == 0 {
		budget = math.MaxInt
	}
	// One pass over the running requests for what a step needs of them
	// all; only a preemption, which shortens the batch, takes another.
	rk.tail = min(rk.tail, len(rk.running))
	prefillPending := rk.tail < len(rk.running)
	sums := rk.served
	rk.served.ok = false
	if !sums.ok {
		sums = servedOf(rk.running[:rk.tail])
	}
	l.decodeSeqs, l.ctx = sums.decodeSeqs, float64(sums.ctx)
	prefillPending = prefillPending || sums.pending
	mixed := sc.s.eng.mixed
	rk.prefilling = prefillPending && !mixed
	if !rk.prefilling {
		if sc.makeRoom(rk, l.decodeSeqs) {
			l.decodeSeqs, l.ctx = decoding(rk.running)
		}
		if mixed {
			budget -= l.decodeSeqs * sc.pf.q
		}
	}
	if !prefillPending {
		return l
	}
	if rk.prefilling {
		l.decodeSeqs, l.ctx = 0, 0 // decoding stalls behind a prefill step
	}
	for i, r := range rk.running {
		if budget <= 0 {
			break
		}
		if left := r.prompt - r.prefilled; left > 0 {
			if i >= rk.tail {
				rk.tail = i + 1 // served from now on: walked by finish
			}
			n := min(left, budget)
			r.portion = n
			budget -= n
			l.prefill += n
			if n == left {
				l.prefillSeqs++
			}
			l.prefillCtx += float64(n) * (float64(r.prefilled) + float64(n)/2)
		}
	}
	rk.clampPure() // the budget may have reached into them
	return l
}

// servedOf walks served requests for batch, clearing their prefill
// portions. The context is summed in integers and converted once: every
// partial sum is an integer far below 2⁵³, so the float is the same, and
// an integer add does not wait on the previous one as a float add does.
func servedOf(served []*simReq) servedSums {
	var s servedSums
	for _, r := range served {
		if r.portion != 0 { // no store, so no dirty line, on a decoder
			r.portion = 0
		}
		s.add(r)
	}
	return s
}

// add counts served request r, whose portion is 0.
func (s *servedSums) add(r *simReq) {
	if r.prefilled < r.prompt {
		s.pending = true
	} else {
		s.decodeSeqs++
		s.ctx += r.prompt + r.gen
	}
}

// decoding is how many requests decode and their summed context.
func decoding(running []*simReq) (n int, ctx float64) {
	sum := 0 // exact, as in batch
	for _, r := range running {
		if r.prefilled >= r.prompt {
			n++
			sum += r.prompt + r.gen
		}
	}
	return n, float64(sum)
}

// makeRoom preempts the newest requests when decoding (decoders
// requests) would overflow the KV cache (vLLM recompute / SGLang
// retract); true if it preempted any.
func (sc *scheduler) makeRoom(rk *rankState, decoders int) bool {
	grow := decoders * sc.pf.q
	preempted := false
	rk.clampPure()
	for rk.kvUsed+grow > rk.kvCap && len(rk.running) > 1 {
		if rk.pure > 0 {
			// The pure requests last: popped one by one they would change
			// nothing (they hold nothing and decode none) and land first in
			// the queue in this order.
			k := min(rk.pure, len(rk.running)-1)
			n := len(rk.running) - k
			rk.waiting.pushFrontBlock(rk.running[n:], rk.pureNeed, rk.pureVis)
			clear(rk.running[n:])
			rk.running = rk.running[:n]
			rk.tail = min(rk.tail, n)
			rk.pure -= k
			rk.clampPure()
			preempted = true
			continue
		}
		v := rk.running[len(rk.running)-1]
		rk.running = rk.running[:len(rk.running)-1]
		rk.tail = min(rk.tail, len(rk.running))
		if v.prefilled >= v.prompt {
			grow -= sc.pf.q
		}
		sc.off.spill(rk, v, sc.now) // offload.go: keep its KV on the host
		rk.kvUsed -= v.kv
		v.kv, v.prefilled = 0, 0
		sc.blocksReleased(rk, v)
		v.prompt = v.in + v.gen
		rk.waiting.pushFront(v)
		preempted = true
	}
	return preempted
}

// finish applies a completed step at sc.now: tokens reach the client half
// a request overhead later.
func (sc *scheduler) finish(g *group) {
	g.busy = false
	at := sc.now + sc.outOverhead()
	for _, rk := range g.ranks {
		if sc.tracing {
			sc.traceStep(g, rk)
		}
		// Compacted in place, writing a pointer only after a request left:
		// most steps finish none, and a pointer write per running request
		// per step costs a write barrier while the collector runs.
		// The unserved tail gets nothing this step: it only moves down
		// over the requests that left.
		rk.tail = min(rk.tail, len(rk.running))
		n := 0
		// advance leaves every portion 0: batch needs no pass to clear them.
		var sums servedSums
		// A plain decoder — one token a step, each a chunk to the client,
		// no trace to keep — is advanced here, as advance would: most
		// request-steps are, and the call was a fifth of a prediction's
		// CPU (issue 49).
		plain := sc.pf.accept == 1 && !sc.tracing && !rk.prefilling && (sc.noGaps || sc.s.model.TokensPerChunk <= 1)
		for i, r := range rk.running[:rk.tail] {
			if plain && r.portion == 0 && r.acc == 0 && r.prefilled >= r.prompt && r.gen < r.out {
				r.gen++
				r.kv++
				rk.kvUsed++
				if r.gen >= r.out {
					r.done, r.finish = true, at
				}
				if !sc.noGaps {
					r.itl = append(r.itl, seconds(at-r.last))
					r.last = at
				}
			} else {
				sc.advance(rk, r, at)
			}
			if r.done {
				rk.kvUsed -= r.kv
				sc.blocksReleased(rk, r)
				if sc.s.prefixCache && r.failed == "" && r.continued {
					rk.cache.keep(r.idx, r.kv)
					rk.cache.evict(rk.kvUsed, rk.kvCap)
				}
				sc.releases = append(sc.releases, r.finish)
				sc.released(r)
				continue
			}
			sums.add(r)
			if n != i {
				rk.running[n] = r
			}
			n++
		}
		sums.ok = true
		rk.served = sums
		if n != rk.tail { // only when a request left: no pointer writes otherwise
			m := n + copy(rk.running[n:], rk.running[rk.tail:])
			clear(rk.running[m:])
			rk.running = rk.running[:m]
		}
		rk.tail = n
	}
}

func (sc *scheduler) advance(rk *rankState, r *simReq, at float64) {
	if r.portion > 0 {
		r.prefilled += r.portion
		rk.kvUsed += r.portion
		r.kv += r.portion
		r.portion = 0
		if r.prefilled < r.prompt {
			return
		}
		if r.group >= 0 && sc.s.prefixCache {
			rk.cache.groups[r.group] = true
		}
		if r.same >= 0 && sc.s.prefixCache {
			rk.cache.same[r.same] = true
		}
		sc.blocksComputed(rk, r)
		if r.gen > 0 {
			return // recomputed after preemption; decoding resumes next step
		}
		r.gen = 1
		rk.kvUsed++
		r.kv++
		r.first, r.last = at, at
		sc.complete(r, at)
		return
	}
	if rk.prefilling || r.prefilled < r.prompt {
		return // decoding stalled behind a prefill step
	}
	k := 1
	if sc.pf.accept != 1 || r.acc != 0 {
		// Speculative decoding: whole tokens accepted this step, the
		// fraction carried. Without it acc stays 0 and k is 1 (the same
		// arithmetic, not done per request per step).
		r.acc += sc.pf.accept
		k = int(r.acc)
		r.acc -= float64(k)
	}
	k = min(max(k, 1), r.out-r.gen)
	r.gen += k
	rk.kvUsed += k
	r.kv += k
	if sc.tracing {
		r.tokenTraced()
	}
	sc.complete(r, at)
	if !sc.noGaps && r.textChunk(k, sc.s.model.TokensPerChunk) {
		r.itl = append(r.itl, seconds(at-r.last))
		r.last = at
	}
}

// textChunk reports whether the k tokens just generated reach the client
// as a chunk with text: with perChunk > 1 tokens per text chunk, only
// that share of steps sends one (the last token always does).
func (r *simReq) textChunk(k int, perChunk float64) bool {
	if perChunk <= 1 || r.done {
		return true
	}
	r.text += float64(k) / perChunk
	if r.text < 1 {
		return false
	}
	r.text -= math.Floor(r.text)
	return true
}

func (sc *scheduler) complete(r *simReq, at float64) {
	if r.gen >= r.out {
		r.done, r.finish = true, at
	}
}

func (sc *scheduler) fail(r *simReq, msg string) {
	r.done, r.failed, r.finish = true, msg, sc.now
	sc.releases = append(sc.releases, sc.now)
	sc.released(r)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// records converts simulated requests to client-side records.
func (sc *scheduler) records() []bench.Record {
	out := make([]bench.Record, len(sc.reqs))
	for i, r := range sc.reqs {
		rec := bench.Record{Index: i, InputTokens: r.in, Start: seconds(r.sent)}
		if r.failed != "" {
			rec.Error = r.failed
			rec.Latency = seconds(r.finish) - rec.Start
		} else {
			rec.Success = true
			rec.OutputTokens = r.gen
			// Differences of rounded instants, so that a request sent when
			// another ends does not overlap it by a nanosecond.
			rec.TTFT = seconds(r.first) - rec.Start
			rec.Latency = seconds(r.finish) - rec.Start
			if len(r.itl) > 0 {
				rec.ITL = r.itl // nil when empty, as before the shared array
			}
		}
		out[i] = rec
	}
	return out
}
