package sim

import "math"

// offloads model CPU KV offload (vLLM's native offloading connector,
// SGLang's hierarchical cache; the kv_offload_gb knob): a host pool per
// rank that a preempted request's KV spills to instead of being
// discarded, and is loaded back from over PCIe when the request is
// admitted again, rather than recomputed. Prefix-cache spill to host is
// not modelled: the simulated prefix cache never evicts. With a GPU pool
// that never fills nothing is preempted, and offload changes nothing.
type offloads struct {
	perRank int // host pool of one rank, in tokens
	free    map[*rankState]int
	held    map[*simReq]int
	// loadPerToken is seconds per token of KV moved host → GPU.
	loadPerToken float64
}

// pcieEff is the share of the card's PCIe bandwidth a KV copy reaches
// (pinned memory, page-sized chunks).
const pcieEff = 0.8

// newOffloads is nil without offload. The knob is the instance's host
// memory summed over its TP ranks, as vLLM's --kv-offloading-size; each
// GPU gets its share, which holds as many tokens as its KV layout packs.
func newOffloads(s *setup, p memPlan) *offloads {
	if s.offloadGiB <= 0 || p.kvPerToken <= 0 {
		return nil
	}
	perGPU := s.offloadGiB * gib / float64(max(s.tp, 1))
	o := &offloads{perRank: int(perGPU / p.kvPerToken), free: map[*rankState]int{}, held: map[*simReq]int{}}
	if pcie := s.gpu.PCIeGBs; pcie > 0 {
		o.loadPerToken = p.kvPerToken / (pcie * 1e9 * pcieEff)
	} else {
		o.loadPerToken = math.Inf(1) // no link: never worth loading
		o.perRank = 0
	}
	return o
}

// spill keeps r's KV on the host when the rank's pool has room (called as
// r is preempted, before its GPU KV is freed). The request becomes
// schedulable again once the copy back could have finished.
func (o *offloads) spill(rk *rankState, r *simReq, now float64) {
	if o == nil || r.kv <= 0 {
		return
	}
	free, seen := o.free[rk]
	if !seen {
		free = o.perRank
	}
	if r.kv > free {
		return // the host pool is full: recompute, as without offload
	}
	o.free[rk] = free - r.kv
	o.held[r] = r.kv
	r.visible = max(r.visible, now+float64(r.kv)*o.loadPerToken)
}

// restore moves r's spilled KV back into the rank's GPU pool as it is
// admitted and returns how many prompt tokens need no prefill.
func (o *offloads) restore(rk *rankState, r *simReq) int {
	if o == nil {
		return 0
	}
	n, ok := o.held[r]
	if !ok {
		return 0
	}
	delete(o.held, r)
	o.free[rk] += n
	n = min(n, r.prompt-r.prefilled)
	rk.kvUsed += n
	r.kv += n
	return n
}
