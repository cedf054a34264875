package prior

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A prior's memory plan is two numbers a machine may not share with its
// card: the usable memory (driver and runtime reservations differ by
// ±15%) and the overheads besides weights and KV cache (activation
// peaks, CUDA graphs, communication buffers: the kernels of a build move
// them by half again). Where either is off, the plan's out-of-memory
// predictions are wrong on a whole band of configs, and the prior's own
// best picks, which sit at the edge of memory, run out of it one after
// another.
//
// memoryModel learns the two from the study's own trials: a posterior
// over a grid of hypotheses (memory × the card's, overheads × the
// card's), each a machine the memory plan can be asked about
// (MemoryPlanner). A config that started (completed or pruned) rules out
// the hypotheses under which it would not; one that ran out of memory
// those under which it would start; a contradiction costs a hypothesis a
// factor memoryNoise rather than all its weight, so one odd failure (a
// fragmented allocator) does not rule the truth out. A config is
// predicted to start when the hypotheses under which it starts hold most
// of the weight. The card itself holds cardShare of the prior weight, so
// until a trial contradicts it the learned plan decides exactly as the
// card's does; after that its predictions move as fast as the evidence
// says, re-opening configs the card called out of memory once trials
// show more room, and closing the band the card overrated. It is learnt
// only from told trials, so a resumed study relearns it from its history.

// The hypothesis grid: memory scales exp(i·memStep) and overhead scales
// exp(j·overStep) for |i|, |j| ≤ ladderHalf (memory ×0.61–1.65, overheads
// ×0.37–2.7), with a log-normal prior weight of widths memSigma and
// overSigma around the card; the card point holds cardShare of it.
const (
	ladderHalf  = 20
	memStep     = 0.025
	overStep    = 0.05
	memSigma    = 0.1
	overSigma   = 0.4
	cardShare   = 0.6
	memoryNoise = 0.05
	// exploreFloor is the least chance of starting a config the learned
	// plan expects to fail needs to be explored anyway.
	exploreFloor = 0.2
)

func ladder(step float64) []float64 {
	out := make([]float64, 2*ladderHalf+1)
	for i := range out {
		out[i] = math.Exp(float64(i-ladderHalf) * step)
	}
	return out
}

// memoryLimit is a config's memory plan on the grid: for each memory
// rung, how many overhead rungs (from the smallest) it starts under.
// nil: memory says nothing about the config.
type memoryLimit []int

// fitsAt reports whether the config starts on hypothesis (mi, oi).
func (l memoryLimit) fitsAt(mi, oi int) bool { return oi < l[mi] }

// memoryLimits asks fits for a config's limit, by bisection over the
// overhead rungs of each memory rung: the plan starts fewer configs with
// more overhead or less memory, so each rung's limit is at least the
// previous one's.
func memoryLimits(mems, overs []float64, fits func(mem, overhead float64) (bool, bool)) memoryLimit {
	lims := make(memoryLimit, len(mems))
	lo := 0
	for mi, m := range mems {
		a, b := lo, len(overs) // rungs below a start; b fails or is past the end
		for a < b {
			mid := (a + b) / 2
			f, ok := fits(m, overs[mid])
			if !ok {
				return nil
			}
			if f {
				a = mid + 1
			} else {
				b = mid
			}
		}
		lims[mi], lo = a, a
	}
	return lims
}

// memoryPrior is the hypotheses' prior log weights (memory rung major).
func memoryPrior(mems, overs []float64) []float64 {
	out := make([]float64, len(mems)*len(overs))
	sum := 0.0
	for mi, m := range mems {
		for oi, o := range overs {
			lm, lo := math.Log(m)/memSigma, math.Log(o)/overSigma
			out[mi*len(overs)+oi] = -(lm*lm + lo*lo) / 2
			sum += math.Exp(out[mi*len(overs)+oi])
		}
	}
	card := (len(mems)/2)*len(overs) + len(overs)/2
	rest := sum - math.Exp(out[card])
	out[card] = math.Log(rest * cardShare / (1 - cardShare))
	return out
}

// memoryUpdate is the posterior after a config with limit l started
// (started) or ran out of memory: every hypothesis it contradicts loses
// the factor memoryNoise.
func memoryUpdate(logW []float64, nOver int, l memoryLimit, started bool) {
	for h := range logW {
		if l.fitsAt(h/nOver, h%nOver) != started {
			logW[h] += math.Log(memoryNoise)
		}
	}
}

// fitProbability is the posterior weight of the hypotheses under which a
// config with limit l starts.
func fitProbability(logW []float64, nOver int, l memoryLimit) float64 {
	top := math.Inf(-1)
	for _, w := range logW {
		top = math.Max(top, w)
	}
	in, all := 0.0, 0.0
	for h, lw := range logW {
		w := math.Exp(lw - top)
		all += w
		if l.fitsAt(h/nOver, h%nOver) {
			in += w
		}
	}
	return in / all
}

// memoryModel is the learned memory plan of one study.
type memoryModel struct {
	plan         search.MemoryPlanner
	mems, overs  []float64
	logW         []float64
	limits       map[string]memoryLimit
	contradicted bool // a trial contradicted the card's plan
}

func newMemoryModel(p search.Prior) *memoryModel {
	plan, ok := unwrapPrior(p).(search.MemoryPlanner)
	if !ok {
		return nil
	}
	mems, overs := ladder(memStep), ladder(overStep)
	return &memoryModel{plan: plan, mems: mems, overs: overs, logW: memoryPrior(mems, overs), limits: map[string]memoryLimit{}}
}

// limit is c's memory limit (key: its configKey), asked once.
func (mm *memoryModel) limit(key string, c space.Config) memoryLimit {
	if l, ok := mm.limits[key]; ok {
		return l
	}
	l := memoryLimits(mm.mems, mm.overs, func(m, o float64) (bool, bool) { return mm.plan.MemoryFits(c, m, o) })
	mm.limits[key] = l
	return l
}

// tell learns from a trial of c that started or ran out of memory.
func (mm *memoryModel) tell(key string, c space.Config, started bool) {
	l := mm.limit(key, c)
	if l == nil {
		return
	}
	if l.fitsAt(ladderHalf, ladderHalf) != started {
		mm.contradicted = true
	}
	memoryUpdate(mm.logW, len(mm.overs), l, started)
}

// fits is the learned plan's verdict on c, which the prior predicts
// feasible or not (feasible): decided is false where memory says nothing
// about c — the plan refuses it for another reason, or the card's plan
// starts it while the prior still predicts it fails (under the
// benchmark's load, or without the objectives).
func (mm *memoryModel) fits(key string, c space.Config, feasible bool) (fits, decided bool) {
	p, decided := mm.chance(key, c, feasible)
	return p > 0.5, decided
}

// chance is fits' probability that c starts.
func (mm *memoryModel) chance(key string, c space.Config, feasible bool) (p float64, decided bool) {
	l := mm.limit(key, c)
	if l == nil || l.fitsAt(ladderHalf, ladderHalf) != feasible {
		return 0, false
	}
	return fitProbability(mm.logW, len(mm.overs), l), true
}

// scales is the posterior mean (geometric) of the memory and overhead
// scales: what the study learnt about the machine.
func (mm *memoryModel) scales() (mem, overhead float64) {
	top := math.Inf(-1)
	for _, w := range mm.logW {
		top = math.Max(top, w)
	}
	var lm, lo, all float64
	n := len(mm.overs)
	for h, lw := range mm.logW {
		w := math.Exp(lw - top)
		all += w
		lm += w * math.Log(mm.mems[h/n])
		lo += w * math.Log(mm.overs[h%n])
	}
	return math.Exp(lm / all), math.Exp(lo / all)
}

// refusedChance is the learned plan's chance that c starts, for a config
// the card's plan refuses on memory; refused is false otherwise (memory
// says nothing about c, or the card starts it).
func (mm *memoryModel) refusedChance(key string, c space.Config) (p float64, refused bool) {
	l := mm.limit(key, c)
	if l == nil || l.fitsAt(ladderHalf, ladderHalf) {
		return 0, false
	}
	return fitProbability(mm.logW, len(mm.overs), l), true
}

// likeliestFit is the machine (memory, overhead scales) of the heaviest
// hypothesis under which c starts; the card's when none does.
func (mm *memoryModel) likeliestFit(key string, c space.Config) [2]float64 {
	l := mm.limit(key, c)
	best, at := math.Inf(-1), [2]float64{1, 1}
	n := len(mm.overs)
	for h, lw := range mm.logW {
		if l != nil && l.fitsAt(h/n, h%n) && lw > best {
			best, at = lw, [2]float64{mm.mems[h/n], mm.overs[h%n]}
		}
	}
	return at
}
