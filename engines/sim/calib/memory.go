package calib

import (
	"math"
	"slices"

	"github.com/servetune/servetune/engines/sim"
)

// memoryGridSteps is how many multipliers of the memory overhead the fit
// tries between its bounds: a few percent apart, finer than the seeds'
// OOM cliffs are known.
const memoryGridSteps = 32

// MemoryAgreement counts the configs whose start or OOM the simulator
// predicts as measured, before and after the fit.
type MemoryAgreement struct {
	Configs, Before, After int
}

// fitMemory fits the memory overhead to which configs started and which
// ran out of memory, when the throughput fit did not already identify
// it: the multiplier that gets the most of them right, the one nearest 1
// among equals (so a study without OOMs, all predicted to start, keeps
// 1). Starts are cheap (no benchmark), so every such config counts.
func fitMemory(p Problem, keep []Factor, res *Result) {
	if p.Starts == nil || len(p.Ran) == 0 {
		return
	}
	agree := func(c *sim.Cards) int {
		n := 0
		for i, ok := range p.Starts(c) {
			if ok == p.Ran[i] {
				n++
			}
		}
		return n
	}
	res.Memory = &MemoryAgreement{Configs: len(p.Ran), Before: agree(p.Cards)}
	k := slices.IndexFunc(p.Factors, func(f Factor) bool { return f.memory })
	if k >= 0 && !slices.ContainsFunc(keep, func(f Factor) bool { return f.memory }) {
		mem := p.Factors[k : k+1]
		best, bestAgree := 1.0, agree(res.Cards)
		for _, x := range logGrid(mem[0].Lo, mem[0].Hi, memoryGridSteps) {
			a := agree(Apply(res.Cards, mem, []float64{x}))
			if a > bestAgree || a == bestAgree && math.Abs(math.Log(x)) < math.Abs(math.Log(best)) {
				best, bestAgree = x, a
			}
		}
		if best != 1 {
			res.Cards = Apply(res.Cards, mem, []float64{best})
			res.Fitted = append(res.Fitted, Fitted{Name: mem[0].Name, Scale: best})
			res.Fixed = slices.DeleteFunc(res.Fixed, func(n string) bool { return n == mem[0].Name })
		}
	}
	res.Memory.After = agree(res.Cards)
}

// logGrid is n+1 multipliers from lo to hi, evenly spaced in log.
func logGrid(lo, hi float64, n int) []float64 {
	out := make([]float64, n+1)
	for i := range out {
		out[i] = math.Exp(math.Log(lo) + (math.Log(hi)-math.Log(lo))*float64(i)/float64(n))
	}
	return out
}
