package motpe

import (
	"math"
	"math/rand"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// parzen is a one-knob kernel density: one component per observation where
// the knob was active, plus a wide prior component so unexplored values
// keep some probability.
type parzen struct {
	p space.Param
	n int
	// weights are normalised over the observations and the prior (last).
	weights []float64
	// Numeric knobs: components in the internal (log for log knobs) scale,
	// truncated to [lo, hi]; half is half a step for discrete knobs.
	mus, sigmas []float64
	lo, hi      float64
	half        float64
	// Categorical knobs: the chosen index per observation.
	cats []int
	// comp maps an observation's index to its component; observations
	// without the knob have none.
	comp map[int]int
}

const priorWeight = 1.0

func newParzen(p space.Param, obs []search.Observation, w []float64) *parzen {
	z := &parzen{p: p, comp: map[int]int{}}
	var vals []float64
	for i, o := range obs {
		v, ok := o.Config[p.Name]
		if !ok || !p.Contains(v) {
			continue
		}
		z.comp[i] = len(z.weights)
		z.weights = append(z.weights, w[i])
		if p.Kind == space.Categorical {
			z.cats = append(z.cats, search.CategoryIndex(p, v))
		} else {
			f, _ := space.Number(v, true)
			vals = append(vals, f)
		}
	}
	z.n = len(z.weights)
	z.weights = append(z.weights, priorWeight)
	sum := 0.0
	for _, x := range z.weights {
		sum += x
	}
	for i := range z.weights {
		z.weights[i] /= sum
	}
	if p.Kind != space.Categorical {
		z.numeric(vals)
	}
	return z
}

// numeric sets the components as Optuna's univariate TPE does: each
// observation's bandwidth is the distance to its farther neighbour,
// clipped between range/min(100, n+1) and the range ("magic clip"); the
// prior sits mid-range with the range as bandwidth. A discrete knob's
// value stands for the interval of half a step either side.
func (z *parzen) numeric(vals []float64) {
	p := z.p
	step := p.Step
	if p.Kind == space.Int {
		step = math.Max(step, 1)
	}
	z.half = step / 2
	z.lo, z.hi = z.internal(p.Low-z.half), z.internal(p.High+z.half)
	z.mus = make([]float64, len(vals))
	for i, v := range vals {
		z.mus[i] = z.internal(v)
	}
	span := z.hi - z.lo
	if span <= 0 {
		span = 1
	}
	order := make([]int, len(z.mus))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return z.mus[order[a]] < z.mus[order[b]] })
	z.sigmas = make([]float64, len(z.mus))
	minSigma := span / math.Min(100, float64(len(z.mus)+1))
	for k, i := range order {
		left, right := z.lo, z.hi
		if k > 0 {
			left = z.mus[order[k-1]]
		}
		if k+1 < len(order) {
			right = z.mus[order[k+1]]
		}
		sigma := math.Max(z.mus[i]-left, right-z.mus[i])
		z.sigmas[i] = math.Min(math.Max(sigma, minSigma), span)
	}
	z.mus = append(z.mus, (z.lo+z.hi)/2)
	z.sigmas = append(z.sigmas, span)
}

// internal maps a knob value to the estimator's scale.
func (z *parzen) internal(v float64) float64 {
	if z.p.Log {
		return math.Log(math.Max(v, 1e-12))
	}
	return v
}

// internalOf maps a config value to the estimator's scale.
func (z *parzen) internalOf(v any) float64 {
	if z.p.Kind == space.Categorical {
		return float64(search.CategoryIndex(z.p, v))
	}
	f, _ := space.Number(v, true)
	return z.internal(f)
}

// draw samples a value in the internal scale (an index for categoricals)
// from the whole mixture.
func (z *parzen) draw(rng *rand.Rand) float64 {
	return z.drawComp(pick(rng, z.weights), rng)
}

// drawComp samples from component k (k == z.n is the prior).
func (z *parzen) drawComp(k int, rng *rand.Rand) float64 {
	if z.p.Kind == space.Categorical {
		m := len(z.p.Values)
		if k == z.n || rng.Float64() < priorWeight/(1+priorWeight) {
			return float64(rng.Intn(m))
		}
		return float64(z.cats[k])
	}
	mu, sigma := z.mus[k], z.sigmas[k]
	a, b := search.NormCDF((z.lo-mu)/sigma), search.NormCDF((z.hi-mu)/sigma)
	x := mu + sigma*math.Sqrt2*math.Erfinv(2*(a+rng.Float64()*(b-a))-1)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		x = z.lo + rng.Float64()*(z.hi-z.lo)
	}
	return math.Min(math.Max(x, z.lo), z.hi)
}

func pick(rng *rand.Rand, w []float64) int {
	u := rng.Float64()
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// logPDF is the log density (log mass for discrete and categorical knobs)
// of an internal-scale value x under the whole mixture.
func (z *parzen) logPDF(x float64) float64 {
	total := 0.0
	for k, w := range z.weights {
		total += w * z.compPDF(k, x)
	}
	return math.Log(math.Max(total, 1e-300))
}

// compPDF is component k's density (mass for discrete knobs) at x; k ==
// z.n is the prior.
func (z *parzen) compPDF(k int, x float64) float64 {
	if z.p.Kind == space.Categorical {
		m := float64(len(z.p.Values))
		if k == z.n {
			return 1 / m
		}
		// Each observation's kernel keeps prior/m of its mass on every
		// value, so a value never seen in l is still possible.
		mass := priorWeight / m
		if z.cats[k] == int(x) {
			mass++
		}
		return mass / (1 + priorWeight)
	}
	mu, sigma := z.mus[k], z.sigmas[k]
	norm := search.NormCDF((z.hi-mu)/sigma) - search.NormCDF((z.lo-mu)/sigma)
	if norm <= 0 {
		return 0
	}
	if z.half > 0 {
		v := valueOf(z.p, x)
		lo, hi := z.internal(v-z.half), z.internal(v+z.half)
		return (search.NormCDF((hi-mu)/sigma) - search.NormCDF((lo-mu)/sigma)) / norm
	}
	u := (x - mu) / sigma
	return math.Exp(-u*u/2) / (sigma * math.Sqrt(2*math.Pi)) / norm
}

// valueOf maps an internal-scale value to the knob's domain as a float:
// back from log, snapped to the step, clamped to the range.
func valueOf(p space.Param, x float64) float64 {
	if p.Log {
		x = math.Exp(x)
	}
	step := p.Step
	if p.Kind == space.Int {
		step = math.Max(step, 1)
	}
	if step > 0 {
		x = p.Low + math.Round((x-p.Low)/step)*step
	}
	return math.Min(math.Max(x, p.Low), p.High)
}

// fromInternal is the config value of an internal-scale draw.
func fromInternal(p space.Param, x float64) any {
	switch {
	case p.Kind == space.Categorical:
		return p.Values[int(x)]
	case p.Kind == space.Int:
		return int64(math.Round(valueOf(p, x)))
	case p.Step > 0:
		return search.RoundStep(valueOf(p, x), p.Step)
	}
	return valueOf(p, x)
}

// mixtureWeights normalises observation weights with the prior's appended.
func mixtureWeights(w []float64) []float64 {
	out := append(append([]float64(nil), w...), priorWeight)
	sum := 0.0
	for _, x := range out {
		sum += x
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// jointLogPDF is the log density of c under the mixture whose component j
// is trial j's kernels on every knob of c (the prior's for knobs the trial
// lacks); the last component is the prior on every knob.
func jointLogPDF(zs map[string]*parzen, w []float64, c space.Config) float64 {
	logs := make([]float64, len(w))
	for j := range w {
		logs[j] = math.Log(w[j])
	}
	// In key order: a float sum in Go's random map order differs in its
	// last bits from run to run, and the sampler's argmax over near-tied
	// candidates then proposes another config (the lab's seeded rows were
	// not repeatable).
	for _, name := range c.Keys() {
		z, ok := zs[name]
		if !ok {
			continue
		}
		x := z.internalOf(c[name])
		for j := range w {
			ci, has := z.comp[j]
			if !has {
				ci = z.n
			}
			logs[j] += math.Log(math.Max(z.compPDF(ci, x), 1e-300))
		}
	}
	top := math.Inf(-1)
	for _, l := range logs {
		top = math.Max(top, l)
	}
	sum := 0.0
	for _, l := range logs {
		sum += math.Exp(l - top)
	}
	return top + math.Log(sum)
}
