package fidelity

import (
	"fmt"

	"github.com/servetune/servetune/engines/sim"
)

// CheckHistory refuses a `sim check`/`sim fit` --history that is not
// one of the replay's modes.
func CheckHistory(h string) error {
	if h != HistoryNone && h != HistoryRestart && h != HistoryTruncate {
		return fmt.Errorf("--history %q: want none, restart or truncate", h)
	}
	return nil
}

// Check refuses options no fit can run with (--ridge, --iterations).
// MaxIterations bounds --iterations: the fit settles in about 8 (the
// default), and each iteration simulates every run.
const MaxIterations = 1000

func (o FitOptions) Check() error {
	if !(o.Ridge > 0) {
		return fmt.Errorf("--ridge must be > 0, not %v", o.Ridge)
	}
	if o.Iterations < 1 {
		return fmt.Errorf("--iterations must be >= 1, not %d", o.Iterations)
	}
	if o.Iterations > MaxIterations {
		return fmt.Errorf("--iterations %d is more than the %d a fit may run (each simulates every run; a typo's extra zeros ran for days)", o.Iterations, MaxIterations)
	}
	return nil
}

// LOOStart is where each leave-one-out fit starts (--loo-start): the
// prior, which knows nothing of the held-out run, or the built-in fit.
func LOOStart(name string) (sim.Coefficients, error) {
	switch name {
	case "prior":
		return sim.PriorVLLM(), nil
	case "fitted":
		return sim.FittedVLLM(), nil
	}
	return sim.Coefficients{}, fmt.Errorf("--loo-start %q: want prior or fitted", name)
}

// ByName is the coefficients by feature name (`sim fit --json`).
func ByName(coef sim.Coefficients) map[string]float64 {
	out := map[string]float64{}
	for i, n := range sim.FeatureNames() {
		out[n] = coef[i]
	}
	return out
}
