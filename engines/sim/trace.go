package sim

// reqTrace accumulates a request's step features (coef.go) so that a fit
// can write its latencies as linear functions of the coefficients: TTFT
// is the in-overhead plus the share of each step spent waiting for and
// computing its prompt; each inter-token gap is the steps since the last
// token.
type reqTrace struct {
	ttft, dec, gap feat
	gaps           int
}

// Trace is a traced simulation: each request's features and the sum of
// every step's (per lockstep group, averaged over groups), with how long
// the engine stood idle, so that a benchmark's duration is Idle +
// coefficients · Steps.
type Trace struct {
	Requests []RequestFeatures
	Steps    []float64
	Idle     float64
}

// RequestFeatures is one request's trace: TTFT ≈ coefficients · TTFT,
// e2e ≈ coefficients · (TTFT + Decode), and Gaps inter-token gaps summing
// to coefficients · Decode.
type RequestFeatures struct {
	TTFT, Decode []float64
	Gaps         int
}

// traceStep charges the step that just ended on rank rk to the requests
// it kept waiting or served.
func (sc *scheduler) traceStep(g *group, rk *rankState) {
	if rk == g.ranks[0] {
		sc.stepSum.add(&g.feat, 1/float64(len(sc.groups)))
		sc.busy += (sc.now - g.from) / float64(len(sc.groups))
	}
	dur := sc.now - g.from
	if dur <= 0 {
		return
	}
	charge := func(r *simReq) {
		if r.tr == nil {
			return
		}
		if r.gen == 0 {
			frac := (sc.now - max(g.from, r.visible)) / dur
			if frac > 0 {
				r.tr.ttft.add(&g.feat, min(frac, 1))
			}
			return
		}
		r.tr.gap.add(&g.feat, 1)
	}
	for r := range rk.waiting.all() {
		charge(r)
	}
	for _, r := range rk.running {
		charge(r)
	}
}

// tokenTraced closes a gap when r receives tokens.
func (r *simReq) tokenTraced() {
	if r.tr == nil {
		return
	}
	r.tr.dec.add(&r.tr.gap, 1)
	r.tr.gap = feat{}
	r.tr.gaps++
}

// inOverhead is the time from send until the scheduler sees r: HTTP,
// validation and tokenisation.
func (sc *scheduler) inOverhead(r *simReq) float64 {
	if !sc.s.eng.refitted {
		return sc.halfRO
	}
	c := &sc.pf.coef
	if r.tr != nil {
		r.tr.ttft[fRequest]++
		r.tr.ttft[fPromptK] += float64(r.in) / 1000
	}
	return c[fRequest] + c[fPromptK]*float64(r.in)/1000
}

// outOverhead is from a step's end until its tokens reach the client; the
// vLLM model folds it into the step's CPU time.
func (sc *scheduler) outOverhead() float64 {
	if sc.s.eng.refitted {
		return 0
	}
	return sc.halfRO
}

func (sc *scheduler) trace(end float64) *Trace {
	return &Trace{Requests: sc.features(), Steps: append([]float64(nil), sc.stepSum[:]...), Idle: max(end-sc.busy, 0)}
}

func (sc *scheduler) features() []RequestFeatures {
	out := make([]RequestFeatures, len(sc.reqs))
	for i, r := range sc.reqs {
		if r.tr == nil || r.failed != "" {
			continue
		}
		out[i] = RequestFeatures{TTFT: append([]float64(nil), r.tr.ttft[:]...), Decode: append([]float64(nil), r.tr.dec[:]...), Gaps: r.tr.gaps}
	}
	return out
}
