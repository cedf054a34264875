package lab

import (
	"fmt"
	"math"
	"math/rand"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/internal/suggest"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// The test bed's held-out kinds of simulator error (docs/search.md, "The
// test bed's held-out kinds of simulator error"): each multiplies a
// family reality's true throughputs by a factor f(config) of the knobs'
// positions, and divides its latencies by it. The family never draws
// them and the prior never sees them, so a search tuned on the family is
// measured on an error it was not tuned against.
const (
	HeldInteraction = "interaction"
	HeldReversed    = "reversed"
	HeldThreshold   = "threshold"
)

// The held-out draws' ranges, as the definition gives them.
const (
	// interactionSpan is the largest |ln f| of interaction over the
	// space's grid: f spans [1/1.1, 1.1].
	interactionSpan      = 0.0953101798043249 // ln 1.1
	reversedLo           = 0.1
	reversedHi           = 0.2
	thresholdLo          = 0.3
	thresholdHi          = 0.7
	thresholdStepLo      = 0.06
	thresholdStepHi      = 0.15
	heldOutSeedMultiple  = 104_729
	heldOutInteractSalt  = 101
	heldOutReversedSalt  = 202
	heldOutThresholdSalt = 303
)

// HeldOutKinds lists the held-out kinds, in the definition's order.
func HeldOutKinds() []string { return []string{HeldInteraction, HeldReversed, HeldThreshold} }

// checkHeldOut refuses an unknown held-out kind ("" is none).
func checkHeldOut(kind string) error {
	if kind == "" {
		return nil
	}
	for _, k := range HeldOutKinds() {
		if k == kind {
			return nil
		}
	}
	return fmt.Errorf("unknown held-out kind %q%s (known: %s)", kind, suggest.Hint(kind, HeldOutKinds()), strings.Join(HeldOutKinds(), ", "))
}

// heldOutFactor is f of kind's held-out error for seed on sp's knobs
// (nil for kind ""). Its draws come from their own stream per kind, so
// the family's draw of the seed (NewReality) is the same with and
// without it.
func heldOutFactor(kind string, sp *space.Space, seed int64) (func(space.Config) float64, error) {
	switch kind {
	case "":
		return nil, nil
	case HeldInteraction:
		return interactionFactor(sp, heldOutRNG(seed, heldOutInteractSalt)), nil
	case HeldReversed:
		return reversedFactor(sp, heldOutRNG(seed, heldOutReversedSalt))
	case HeldThreshold:
		return thresholdFactor(sp, heldOutRNG(seed, heldOutThresholdSalt))
	}
	return nil, checkHeldOut(kind)
}

func heldOutRNG(seed, salt int64) *rand.Rand {
	return rand.New(rand.NewSource(seed*heldOutSeedMultiple + salt))
}

// interactionFactor is exp(A·Σₖ<ₗ wₖₗ(zₖ−½)(zₗ−½)), wₖₗ ~ N(0, 1) over
// every pair of the space's knobs in declared order, A such that the
// largest |ln f| over the space's grid is ln 1.1. A pair with a knob the
// config leaves inactive adds nothing.
func interactionFactor(sp *space.Space, rng *rand.Rand) func(space.Config) float64 {
	params := sp.Params
	w := make([][]float64, len(params))
	for k := range params {
		w[k] = make([]float64, len(params))
		for l := k + 1; l < len(params); l++ {
			w[k][l] = rng.NormFloat64()
		}
	}
	g := func(c space.Config) float64 {
		z := make([]float64, len(params))
		set := make([]bool, len(params))
		for k, p := range params {
			z[k], set[k] = configPosition(p, c)
		}
		sum := 0.0
		for k := range params {
			for l := k + 1; l < len(params); l++ {
				if set[k] && set[l] {
					sum += w[k][l] * (z[k] - 0.5) * (z[l] - 0.5)
				}
			}
		}
		return sum
	}
	peak := 0.0
	for _, c := range ruleGrid(sp) {
		peak = max(peak, math.Abs(g(c)))
	}
	a := 0.0
	if peak > 0 {
		a = interactionSpan / peak
	}
	return func(c space.Config) float64 { return math.Exp(a * g(c)) }
}

// reversedFactor is 1 + a(zₖ−½) on one knob of at least three values
// chosen by the seed, a ∈ ±[0.1, 0.2]: the order of its values is no
// longer the simulator's.
func reversedFactor(sp *space.Space, rng *rand.Rand) (func(space.Config) float64, error) {
	p, a, err := reversedDraw(sp, rng)
	if err != nil {
		return nil, err
	}
	return func(c space.Config) float64 {
		z, ok := configPosition(p, c)
		if !ok {
			return 1
		}
		return 1 + a*(z-0.5)
	}, nil
}

// reversedDraw is reversed's knob and slope a.
func reversedDraw(sp *space.Space, rng *rand.Rand) (space.Param, float64, error) {
	p, err := pickKnob(sp, 3, rng)
	if err != nil {
		return p, 0, fmt.Errorf("held-out %s: %w", HeldReversed, err)
	}
	return p, signed(rng, reversedLo, reversedHi), nil
}

// thresholdFactor is 1 + b above a position t ∈ [0.3, 0.7] of one knob
// chosen by the seed and 1 at or below it, b ∈ ±[0.06, 0.15]: a cliff.
func thresholdFactor(sp *space.Space, rng *rand.Rand) (func(space.Config) float64, error) {
	p, t, b, err := thresholdDraw(sp, rng)
	if err != nil {
		return nil, err
	}
	return func(c space.Config) float64 {
		if z, ok := configPosition(p, c); ok && z > t {
			return 1 + b
		}
		return 1
	}, nil
}

// thresholdDraw is threshold's knob, position t and step b. The knob
// has at least two values: a single value has nothing above t.
func thresholdDraw(sp *space.Space, rng *rand.Rand) (p space.Param, t, b float64, err error) {
	if p, err = pickKnob(sp, 2, rng); err != nil {
		return p, 0, 0, fmt.Errorf("held-out %s: %w", HeldThreshold, err)
	}
	t = uniform(rng, thresholdLo, thresholdHi)
	return p, t, signed(rng, thresholdStepLo, thresholdStepHi), nil
}

// signed is a magnitude in [lo, hi] with a random sign.
func signed(rng *rand.Rand, lo, hi float64) float64 {
	sign := 1.0
	if rng.Intn(2) == 0 {
		sign = -1
	}
	return sign * uniform(rng, lo, hi)
}

// pickKnob is one of sp's knobs with at least minLevels values, chosen
// uniformly in declared order.
func pickKnob(sp *space.Space, minLevels int, rng *rand.Rand) (space.Param, error) {
	var ok []space.Param
	for _, p := range sp.Params {
		if levels(p) >= minLevels {
			ok = append(ok, p)
		}
	}
	if len(ok) == 0 {
		return space.Param{}, fmt.Errorf("no knob has %d values or more", minLevels)
	}
	return ok[rng.Intn(len(ok))], nil
}

// levels is how many values the knob takes on the grid.
func levels(p space.Param) int {
	if vals, ok := p.Grid(); ok {
		return len(vals)
	}
	return search.GridFloatPoints
}

// configPosition is the position of c's value of p; false when c leaves
// p unset (inactive) or holds a value off its domain.
func configPosition(p space.Param, c space.Config) (float64, bool) {
	v, ok := c[p.Name]
	if !ok {
		return 0, false
	}
	return knobPosition(p, v)
}

// knobPosition is v's position z ∈ [0, 1] on p: 0/1 for a boolean, the
// declared order for a values list, the log scale for a log range and
// the linear one for another range; ½ for a knob of one value (it moves
// nothing). False for a value off the knob's domain ("default" on a
// range).
func knobPosition(p space.Param, v any) (float64, bool) {
	if p.Kind == space.Categorical {
		if b, isBool := v.(bool); isBool && allBools(p.Values) {
			if b {
				return 1, true
			}
			return 0, true
		}
		for i, x := range p.Values {
			if sameValue(x, v) {
				if len(p.Values) == 1 {
					return 0.5, true
				}
				return float64(i) / float64(len(p.Values)-1), true
			}
		}
		return 0, false
	}
	f, ok := space.Number(space.Normalize(v), false)
	if !ok {
		return 0, false
	}
	lo, hi := p.Low, p.High
	if p.Log && lo > 0 && f > 0 {
		f, lo, hi = math.Log(f), math.Log(lo), math.Log(hi)
	}
	if hi <= lo {
		return 0.5, true
	}
	return min(max((f-lo)/(hi-lo), 0), 1), true
}

func allBools(vals []any) bool {
	for _, x := range vals {
		if _, ok := x.(bool); !ok {
			return false
		}
	}
	return len(vals) > 0
}

// sameValue is whether two knob values are one: equal after
// normalisation, or equal numbers (8 and 8.0).
func sameValue(a, b any) bool {
	a, b = space.Normalize(a), space.Normalize(b)
	if a == b {
		return true
	}
	x, okA := space.Number(a, false)
	y, okB := space.Number(b, false)
	return okA && okB && x == y
}

// ruleGrid is every point of sp's grid that satisfies its rules, with
// the target's engine filled in: the configs the exhaustive truth
// simulates.
func ruleGrid(sp *space.Space) []space.Config {
	var cfgs []space.Config
	for _, c := range search.Grid(sp) {
		c = sp.WithTargetEngine(c)
		if sp.Check(c) == nil {
			cfgs = append(cfgs, c)
		}
	}
	return cfgs
}

// heldOutMetrics is m as the held-out reality measures it: rates (a
// unit per second) multiplied by f, times (ms, s) divided by it, the rest
// (counts, fractions, prices) as they are.
func heldOutMetrics(m map[string]float64, f float64) map[string]float64 {
	if m == nil {
		return nil
	}
	out := make(map[string]float64, len(m))
	for k, v := range m {
		switch metricScale(k) {
		case scaleRate:
			out[k] = v * f
		case scaleTime:
			out[k] = v / f
		default:
			out[k] = v
		}
	}
	return out
}

type scaleKind int

const (
	scaleNone scaleKind = iota
	scaleRate
	scaleTime
)

// metricScale is how a held-out factor moves a metric, from its unit in
// the metric table (bench.MetricOf): a metric the table does not know is
// left alone.
func metricScale(name string) scaleKind {
	m, ok := bench.MetricOf(name)
	switch {
	case !ok:
		return scaleNone
	case strings.Contains(m.Unit, "/s"):
		return scaleRate
	case m.Unit == "ms" || m.Unit == "s":
		return scaleTime
	}
	return scaleNone
}

// heldOutOutcome is out under the held-out factor f: its final metrics
// and every checkpoint's, so pruning sees the same reality the truth
// scores. A failed outcome has none to scale.
func heldOutOutcome(out *outcome, f float64) *outcome {
	if out.err != nil || f == 1 {
		return out
	}
	scaled := *out
	scaled.metrics = heldOutMetrics(out.metrics, f)
	if out.checkpoints != nil {
		scaled.checkpoints = make([]objective.Checkpoint, len(out.checkpoints))
		for i, cp := range out.checkpoints {
			cp.Metrics = heldOutMetrics(cp.Metrics, f)
			scaled.checkpoints[i] = cp
		}
	}
	return &scaled
}
