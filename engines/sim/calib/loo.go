package calib

import (
	"context"
	"errors"
	"math"

	"github.com/servetune/servetune/engines/sim"
)

// LeaveOneOut fits the factors on all trials but one, predicts the one
// left out on the cards so fitted, for each trial in turn, and
// summarises those predictions per metric: the error the fit can claim
// on measurements it has not seen. trialOf gives each measured value's
// trial (0..p.Trials-1). A fold the remaining trials cannot support
// (TooFewTrialsError) predicts its trial on the unfitted cards and is
// counted in refusedFolds.
func LeaveOneOut(ctx context.Context, p Problem, trialOf []int) (errs []MetricError, refusedFolds int, err error) {
	if len(trialOf) != len(p.Measured) {
		return nil, 0, errors.New("calib: trialOf must give every measured value's trial")
	}
	held := make([]float64, len(p.Measured))
	for i := range held {
		held[i] = math.NaN()
	}
	for out := range p.Trials {
		fold, keep := foldProblem(p, trialOf, out)
		cards := p.Cards
		res, err := Fit(ctx, fold)
		var tf *TooFewTrialsError
		switch {
		case errors.As(err, &tf):
			refusedFolds++
		case err != nil:
			return nil, 0, err
		default:
			cards = res.Cards
		}
		pred, err := p.Predict(ctx, cards)
		if err != nil {
			return nil, 0, err
		}
		for i, t := range trialOf {
			if t == out && !keep[i] {
				held[i] = pred[i]
			}
		}
	}
	return Summarize(p.Labels, held, p.Measured), refusedFolds, nil
}

// foldProblem is p without trial out; keep marks the values it keeps.
func foldProblem(p Problem, trialOf []int, out int) (Problem, []bool) {
	keep := make([]bool, len(trialOf))
	var idx []int
	for i, t := range trialOf {
		if t != out {
			keep[i] = true
			idx = append(idx, i)
		}
	}
	f := p
	f.Trials = p.Trials - 1
	f.Ran, f.Starts = nil, nil
	f.Labels, f.Measured = pick(p.Labels, idx), pick(p.Measured, idx)
	f.Predict = func(ctx context.Context, c *sim.Cards) ([]float64, error) {
		all, err := p.Predict(ctx, c)
		if err != nil {
			return nil, err
		}
		return pick(all, idx), nil
	}
	return f, keep
}

func pick[T any](xs []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = xs[i]
	}
	return out
}
