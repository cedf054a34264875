package prior

import (
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// The shared state's hooks into the learned memory plan (memory.go).

// tellMemory teaches the learned memory plan a trial that started
// (completed or pruned) or ran out of memory; other trials say nothing
// about memory.
func (st *state) tellMemory(o search.Observation, c space.Config) {
	started := o.State == search.Complete || o.State == search.Pruned
	if st.memory == nil || !(started || o.Class == search.ClassOOM) {
		return
	}
	st.memory.tell(search.ConfigKey(st.sp, c), c, started)
}

// contradicted reports whether a trial contradicted the card's memory
// plan, so that the learned plan decides (false without one).
func (st *state) contradicted() bool {
	return st.memory != nil && st.memory.contradicted
}

// memoryBusy is busy plus the fully predicted candidates the learned
// memory plan says run out of memory, once a trial has contradicted the
// card's plan (until then it decides as the card does): the prior does
// not pick them.
func (st *state) memoryBusy(busy map[string]bool) map[string]bool {
	if !st.contradicted() {
		return busy
	}
	out := make(map[string]bool, len(busy))
	for k := range busy {
		out[k] = true
	}
	for _, k := range st.tab.order {
		cd := st.tab.cands[k]
		if !cd.refined || out[k] {
			continue
		}
		if fits, decided := st.memory.fits(k, cd.cfg, cd.feasible); decided && !fits {
			out[k] = true
		}
	}
	return out
}

// memoryOpen reports whether screened candidate cd may be refined: not
// once the learned memory plan, after a trial contradicted the card's,
// expects it to run out of memory (the best screened configs sit at the
// edge of memory, and the prior would refine only configs it cannot
// propose).
func (st *state) memoryOpen(cd *candidate) bool {
	if !st.contradicted() {
		return true
	}
	fits, decided := st.memory.fits(search.ConfigKey(st.sp, cd.cfg), cd.cfg, cd.fastOK)
	return fits || !decided
}

// LearntMemory reports the learned memory plan; (1, 1, false) when the
// prior cannot be asked about other machines.
func (ps *sampler) LearntMemory() (mem, overhead float64, contradicted bool) {
	mm := ps.st.memory
	if mm == nil {
		return 1, 1, false
	}
	mem, overhead = mm.scales()
	return mem, overhead, mm.contradicted
}
