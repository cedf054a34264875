package sim

// blockCache is a rank's prefix cache at block granularity, for trace
// workloads whose requests name their prompt blocks (request.blocks): as
// vLLM's hashed KV blocks and SGLang's radix tree, a block computed once
// serves every later prompt that starts with the same blocks, until the
// pool needs its memory.
//
// Accounting keeps rankState.kvUsed true: a block some running request
// uses (users > 0) counts in kvUsed once, however many share it; a block
// no request uses counts in held, the reusable pool evicted least
// recently used first, as the conversations' blocks are (prefixCache).
type blockCache struct {
	entries map[uint64]*blockEntry
	// free are the blocks released to the pool, oldest first; an entry
	// used or evicted since it was pushed is skipped (stamp differs).
	free  []freeBlock
	held  int // tokens of the blocks no request uses
	clock int64
}

type blockEntry struct {
	users  int
	tokens int
	stamp  int64 // when it was last released
}

type freeBlock struct {
	key   uint64
	stamp int64
}

func (bc *blockCache) init() {
	if bc.entries == nil {
		bc.entries = map[uint64]*blockEntry{}
	}
}

// cachedTokens is how many of r's prompt tokens its leading cached blocks
// hold. A prompt cached whole still computes its last block, as vLLM
// recomputes the last token to get logits.
func (bc *blockCache) cachedTokens(r *simReq) int {
	n := 0
	for _, k := range r.blocks {
		if bc.entries[k] == nil {
			break
		}
		n++
	}
	if n > 0 && n*r.blockLen >= r.prompt {
		n--
	}
	return n * r.blockLen
}

// pin takes r's first n blocks into use at admission and returns the
// tokens that leave the reusable pool for kvUsed.
func (bc *blockCache) pin(r *simReq, n int) int {
	moved := 0
	for _, k := range r.blocks[:n] {
		e := bc.entries[k]
		if e.users == 0 {
			bc.held -= e.tokens
			moved += e.tokens
		}
		e.users++
	}
	r.pinned = n
	return moved
}

// computed registers r's blocks once its prompt is in KV. A block new to
// the cache moves out of r's own KV into the shared blocks (kvUsed counts
// it either way). A block another request computed meanwhile is shared
// and r's copy stays r's, freed when it finishes; one in the reusable
// pool replaces r's copy, leaving the pool for kvUsed.
func (bc *blockCache) computed(r *simReq) {
	bc.init()
	for _, k := range r.blocks[r.pinned:] {
		e := bc.entries[k]
		switch {
		case e == nil:
			bc.entries[k] = &blockEntry{users: 1, tokens: r.blockLen}
			r.kv -= r.blockLen
		case e.users == 0:
			bc.held -= e.tokens
			r.kv -= e.tokens
			e.users = 1
		default:
			e.users++
		}
		r.pinned++
	}
}

// release returns r's blocks at its end (finished or preempted) and the
// tokens that leave kvUsed for the reusable pool. The last block goes to
// the pool first, so eviction takes a prompt's tail before its head.
func (bc *blockCache) release(r *simReq) int {
	moved := 0
	for i := r.pinned - 1; i >= 0; i-- {
		e := bc.entries[r.blocks[i]]
		if e.users--; e.users == 0 {
			bc.clock++
			e.stamp = bc.clock
			bc.free = append(bc.free, freeBlock{r.blocks[i], bc.clock})
			bc.held += e.tokens
			moved += e.tokens
		}
	}
	r.pinned = 0
	return moved
}

// evict drops the least recently released blocks until used + held fits
// capacity.
func (bc *blockCache) evict(used, capacity int) {
	for bc.held > 0 && used+bc.held > capacity && len(bc.free) > 0 {
		f := bc.free[0]
		bc.free = bc.free[1:]
		if e := bc.entries[f.key]; e != nil && e.users == 0 && e.stamp == f.stamp {
			delete(bc.entries, f.key)
			bc.held -= e.tokens
		}
	}
	if len(bc.free) > 2*len(bc.entries)+64 {
		bc.compact()
	}
}

// compact drops free entries used or evicted since they were pushed.
func (bc *blockCache) compact() {
	keep := bc.free[:0]
	for _, f := range bc.free {
		if e := bc.entries[f.key]; e != nil && e.users == 0 && e.stamp == f.stamp {
			keep = append(keep, f)
		}
	}
	bc.free = keep
}

// The scheduler's hooks: each is a no-op for a request without blocks or
// with the prefix cache off.

// blocksAdmitted pins the cached blocks r's prefill skips.
func (sc *scheduler) blocksAdmitted(rk *rankState, r *simReq) {
	if !sc.s.prefixCache || len(r.blocks) == 0 || r.cached == 0 {
		return
	}
	rk.kvUsed += rk.cache.blocks.pin(r, r.cached/r.blockLen)
}

// blocksComputed shares r's blocks once its prompt is in KV. Only the
// plan's own scheduler (evaluate) shares blocks: disaggregated servers
// (pd*.go) run schedulers without a plan and free their requests' KV
// themselves, so there the blocks stay private, as without a trace.
func (sc *scheduler) blocksComputed(rk *rankState, r *simReq) {
	if sc.s.prefixCache && len(r.blocks) > 0 && r.gen == 0 && len(sc.reqs) > 0 {
		rk.cache.blocks.computed(r)
	}
}

// blocksReleased returns r's blocks to the pool when it leaves the rank.
func (sc *scheduler) blocksReleased(rk *rankState, r *simReq) {
	if r.pinned == 0 {
		return
	}
	n := rk.cache.blocks.release(r)
	rk.kvUsed -= n
	rk.cache.evict(rk.kvUsed, rk.kvCap)
}
