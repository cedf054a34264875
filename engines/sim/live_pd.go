package sim

// A decode server of a disaggregated deployment receives each prompt's
// KV from a prefill server instead of computing it: the request is
// admitted with those tokens already in its KV cache (they take their
// blocks, as the transfer writes them) and only the last prompt token is
// computed, as the first decode step. Preempted requests recompute from
// scratch, as a real decode server would have to re-fetch or recompute.

// arrive moves a newly admitted request's transferred prompt tokens into
// its KV cache.
func arrive(rk *rankState, r *simReq) {
	if r.gen > 0 {
		return
	}
	if n := min(r.arrived, r.prompt-1) - r.prefilled; n > 0 {
		r.prefilled += n
		r.kv += n
		rk.kvUsed += n
	}
}
