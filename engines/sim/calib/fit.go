package calib

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/servetune/servetune/engines/sim"
)

// TooFewTrialsError is a fit refused because the trials are fewer than
// the factors they move: fitting them all would only fit the noise.
type TooFewTrialsError struct {
	Trials  int
	Factors []string // the identifiable ones
}

func (e *TooFewTrialsError) Error() string {
	return fmt.Sprintf("%d complete trials, but %d factors are identifiable from them (%s): at least %d complete trials are needed",
		e.Trials, len(e.Factors), strings.Join(e.Factors, "; "), len(e.Factors))
}

const (
	// sensitivityStep is the multiplier (×1.2) at which a candidate's
	// effect is measured.
	sensitivityStep = 0.18232155679395462 // ln 1.2
	// minSensitivity: a factor is identifiable when some measured value
	// moves by at least 0.5% per 10% of the factor (d log sim / d log x).
	minSensitivity = 0.05
	// refusedResidual stands for a measured value the simulator refuses
	// (it predicts an OOM for a config that ran): a factor of e³.
	refusedResidual = 3.0
	// priorWeight pulls each log factor toward 0 (a factor of 1) as
	// if one more value said so with the error the simulator has on a
	// good day (≈10%), against a prior spread of ≈35%: a handful of
	// trials moves the factors they see and leaves the others near 1.
	priorWeight = 0.1 / 0.35
)

// Problem is what Fit needs.
type Problem struct {
	// Cards are the cards the fit starts from (the built-in ones, or a
	// --cards file); Factors the candidates (Candidates).
	Cards   *sim.Cards
	Factors []Factor
	// Labels name each measured value's metric ("balanced total_tps"),
	// Measured holds the values (positive), from Trials trials.
	Labels   []string
	Measured []float64
	Trials   int
	// Ran says, for each config of the study that started or ran out of
	// memory, whether it started; Starts answers the same on the given
	// cards (sim.Simulator.Fits). Nil: no memory fit.
	Ran    []bool
	Starts func(c *sim.Cards) []bool
	// Predict simulates every measured value on the given cards, in the
	// same order; a value the simulator refuses is NaN or ≤ 0.
	Predict func(ctx context.Context, c *sim.Cards) ([]float64, error)
}

// Fitted is one factor and its fitted multiplier.
type Fitted struct {
	Name  string
	Scale float64
}

// Result is a fit and the simulator's error before and after it.
type Result struct {
	Fitted []Fitted
	// Fixed are the candidates the measurements do not move, kept at 1.
	Fixed         []string
	Cards         *sim.Cards
	Before, After []MetricError
	// Memory is how many configs' start or OOM the simulator gets right,
	// when Problem.Ran was given.
	Memory *MemoryAgreement
}

// Fit decides which factors the measurements identify, refuses when the
// trials are fewer than those, and fits them by Levenberg–Marquardt on
// log(simulated / measured) within each factor's bounds, regularised
// toward 1.
func Fit(ctx context.Context, p Problem) (*Result, error) {
	ev := newEvaluator(p)
	pred0, err := p.Predict(ctx, p.Cards)
	if err != nil {
		return nil, err
	}
	r0 := logResiduals(pred0, p.Measured)
	cols, err := ev.jacobian(ctx, p.Factors, make([]float64, len(p.Factors)), r0, sensitivityStep)
	if err != nil {
		return nil, err
	}
	res := &Result{Before: Summarize(p.Labels, pred0, p.Measured)}
	keep, kcols := identifiable(p.Factors, cols, res)
	if len(keep) > p.Trials {
		return nil, &TooFewTrialsError{Trials: p.Trials, Factors: names(keep)}
	}
	theta, err := ev.levenbergMarquardt(ctx, keep, r0, kcols)
	if err != nil {
		return nil, err
	}
	scales := exps(theta)
	res.Cards = Apply(p.Cards, keep, scales)
	for k, f := range keep {
		res.Fitted = append(res.Fitted, Fitted{Name: f.Name, Scale: scales[k]})
	}
	fitMemory(p, keep, res)
	pred, err := p.Predict(ctx, res.Cards)
	if err != nil {
		return nil, err
	}
	res.After = Summarize(p.Labels, pred, p.Measured)
	return res, nil
}

// identifiable keeps the factors some measured value is sensitive to,
// with their Jacobian columns, and records the others in res.Fixed.
func identifiable(fs []Factor, cols [][]float64, res *Result) ([]Factor, [][]float64) {
	var keep []Factor
	var kcols [][]float64
	for k, f := range fs {
		s := 0.0
		for _, v := range cols[k] {
			s = max(s, math.Abs(v))
		}
		if s >= minSensitivity {
			keep, kcols = append(keep, f), append(kcols, cols[k])
		} else {
			res.Fixed = append(res.Fixed, f.Name)
		}
	}
	return keep, kcols
}

func names(fs []Factor) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

func exps(theta []float64) []float64 {
	out := make([]float64, len(theta))
	for i, t := range theta {
		out[i] = math.Exp(t)
	}
	return out
}
