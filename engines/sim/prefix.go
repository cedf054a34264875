package sim

// prefixCache is one rank's automatic prefix cache (vLLM APC, SGLang's
// radix cache): system prompts once computed stay (they are small and
// hot), and a finished request's prompt and reply stay in free KV blocks
// until the pool needs them, oldest first, so the next round of its
// conversation recomputes only what is new.
type prefixCache struct {
	groups map[int]bool
	same   map[int]bool // prompts (request.same) computed whole
	convs  map[int]int  // finished request index → tokens held
	order  []int        // convs, oldest first
	held   int
	blocks blockCache // a trace's prompt blocks (prefix_blocks.go)
}

func newPrefixCache() *prefixCache {
	return &prefixCache{groups: map[int]bool{}, same: map[int]bool{}, convs: map[int]int{}}
}

// peek is how many of r's prompt tokens the cache would serve at
// admission, and how many of those are the previous round's blocks, which
// r would take over (take).
func (pc *prefixCache) peek(r *simReq) (cached, owned int) {
	if r.gen > 0 {
		return 0, 0 // recomputation after preemption starts from scratch
	}
	if len(r.blocks) > 0 {
		return pc.blocks.cachedTokens(r), 0
	}
	if r.after >= 0 && pc.hasConv(r.after) {
		c := min(r.shared, r.prompt-1)
		return c, c
	}
	if r.same >= 0 && pc.same[r.same] {
		return r.prompt - 1, 0
	}
	if r.group >= 0 && pc.groups[r.group] {
		return min(r.groupLen, r.prompt-1), 0
	}
	return 0, 0
}

// hasConv reports whether finished request idx's blocks are held.
func (pc *prefixCache) hasConv(idx int) bool {
	_, ok := pc.convs[idx]
	return ok
}

// take moves a finished request's blocks out of the reusable pool.
func (pc *prefixCache) take(idx int) {
	if n, ok := pc.convs[idx]; ok {
		delete(pc.convs, idx)
		pc.held -= n
	}
}

// keep records a finished request's blocks as reusable.
func (pc *prefixCache) keep(idx, tokens int) {
	pc.convs[idx] = tokens
	pc.order = append(pc.order, idx)
	pc.held += tokens
}

// evict frees the oldest reusable blocks until used + held fits capacity:
// the conversations' first, then a trace's blocks.
func (pc *prefixCache) evict(used, capacity int) {
	for pc.held > 0 && used+pc.held+pc.blocks.held > capacity && len(pc.order) > 0 {
		idx := pc.order[0]
		pc.order = pc.order[1:]
		if n, ok := pc.convs[idx]; ok {
			delete(pc.convs, idx)
			pc.held -= n
		}
	}
	if len(pc.order) > 2*len(pc.convs)+64 {
		pc.compact()
	}
	// Then a trace's blocks (not deferred: evict runs at every admission).
	pc.blocks.evict(used+pc.held, capacity)
}

// compact drops order entries already taken by a hit.
func (pc *prefixCache) compact() {
	keep := pc.order[:0]
	for _, idx := range pc.order {
		if _, ok := pc.convs[idx]; ok {
			keep = append(keep, idx)
		}
	}
	pc.order = keep
}
