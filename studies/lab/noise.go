package lab

import (
	"hash/fnv"
	"math"
	"math/rand"
	"strings"
)

// The lab's measurement noise, closer to a real machine's than one
// log-normal factor shared by every metric: the seed reports' repeated
// measurements differ by up to ±9%, metrics of one run do not move
// together exactly, outliers happen, and machines drift.
//
// A trial's factor for metric k is drift(n)·exp(σ·(ρ·z₀ + √(1−ρ²)·z_k)
// − σ²/2): z₀ shared by the trial's metrics, z_k its own, both Student-t
// with noiseDF degrees of freedom scaled to unit variance (heavy tails,
// cut at ±noiseCut), σ from the coefficient of variation cv. drift is an
// AR(1) walk over the study's trial numbers, per seed, with stationary
// spread driftShare·cv: a slow change of the machine over the study.
const (
	noiseRho   = 0.6
	noiseDF    = 3
	noiseCut   = 8
	driftShare = 0.6
	driftPhi   = 0.95
)

// noiseOf is one trial's per-metric step-time factors.
type noiseOf func(metric string) float64

// trialNoise is the noise of trial n of the study seeded seed.
func trialNoise(seed int64, n int, cv float64) noiseOf {
	if cv <= 0 {
		return func(string) float64 { return 1 }
	}
	sigma := math.Sqrt(math.Log1p(cv * cv))
	d := drift(seed, n, driftShare*cv)
	z0 := studentT(rand.New(rand.NewSource(seed*1_000_003 + int64(n))))
	return func(metric string) float64 {
		h := fnv.New64a()
		h.Write([]byte(metric))
		zk := studentT(rand.New(rand.NewSource(seed*1_000_003 + int64(n) + int64(h.Sum64()>>1))))
		z := noiseRho*z0 + math.Sqrt(1-noiseRho*noiseRho)*zk
		return d * math.Exp(sigma*z-sigma*sigma/2)
	}
}

// studentT is a Student-t draw scaled to unit variance, cut at ±noiseCut.
func studentT(rng *rand.Rand) float64 {
	chi := 0.0
	for range noiseDF {
		x := rng.NormFloat64()
		chi += x * x
	}
	t := rng.NormFloat64() / math.Sqrt(chi/noiseDF) * math.Sqrt((noiseDF-2.0)/noiseDF)
	return min(max(t, -noiseCut), noiseCut)
}

// drift is the machine's slow step-time factor at trial n: an AR(1) walk
// in log space from 0, with stationary standard deviation spread.
func drift(seed int64, n int, spread float64) float64 {
	if spread <= 0 {
		return 1
	}
	rng := rand.New(rand.NewSource(seed*7_777_777 + 3))
	innov := spread * math.Sqrt(1-driftPhi*driftPhi)
	x := 0.0
	for range max(n, 0) {
		x = driftPhi*x + innov*rng.NormFloat64()
	}
	return math.Exp(x)
}

// noisy scales a metrics map by the step-time factors f.
func noisy(m map[string]float64, f noiseOf) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		switch {
		case strings.HasSuffix(k, "_tps") || k == "goodput_rps":
			out[k] = v / f(k)
		case strings.HasSuffix(k, "_ms") || strings.HasSuffix(k, "_s"):
			out[k] = v * f(k)
		default:
			out[k] = v
		}
	}
	return out
}
