package calib

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

const (
	maxIterations = 15
	// jacobianStep is the finite difference in log factor: wide enough to
	// step over the simulator's small discontinuities (integer batches).
	jacobianStep = 0.05
)

// evaluator turns log factors into residuals log(simulated / measured).
type evaluator struct {
	p Problem
	// w2 is the squared pull toward 1 (see newEvaluator).
	w2 float64
}

// newEvaluator weighs the pull toward 1 by how many values each trial
// measured: one trial's values share part of their noise (one run of the
// engine, one draw of the simulator's noise), so three metrics of a
// trial are not three independent witnesses against a factor of 1 — nor
// one (they answer to different factors): the pull grows with the square
// root of the values per trial.
func newEvaluator(p Problem) *evaluator {
	perTrial := 1.0
	if p.Trials > 0 {
		perTrial = max(1, float64(len(p.Measured))/float64(p.Trials))
	}
	return &evaluator{p: p, w2: priorWeight * priorWeight * math.Sqrt(perTrial)}
}

func (ev *evaluator) residuals(ctx context.Context, fs []Factor, theta []float64) ([]float64, error) {
	pred, err := ev.p.Predict(ctx, Apply(ev.p.Cards, fs, exps(theta)))
	if err != nil {
		return nil, err
	}
	return logResiduals(pred, ev.p.Measured), nil
}

// logResiduals is log(sim/measured), refusedResidual where the simulator
// refused.
func logResiduals(pred, measured []float64) []float64 {
	r := make([]float64, len(measured))
	for i := range measured {
		r[i] = refusedResidual
		if pred[i] > 0 && !math.IsInf(pred[i], 0) {
			r[i] = math.Log(pred[i] / measured[i])
		}
	}
	return r
}

// jacobian returns d r / d theta_k by differences of step (backward at
// the upper bound); a value refused on either side contributes nothing,
// so a refusal steers the fit only through the cost.
func (ev *evaluator) jacobian(ctx context.Context, fs []Factor, theta, r []float64, step float64) ([][]float64, error) {
	cols := make([][]float64, len(fs))
	for k, f := range fs {
		h := step
		if theta[k]+h > math.Log(f.Hi) {
			h = -h
		}
		t := append([]float64(nil), theta...)
		t[k] += h
		rk, err := ev.residuals(ctx, fs, t)
		if err != nil {
			return nil, err
		}
		cols[k] = make([]float64, len(r))
		for i := range r {
			if r[i] != refusedResidual && rk[i] != refusedResidual {
				cols[k][i] = (rk[i] - r[i]) / h
			}
		}
	}
	return cols, nil
}

// cost is the sum of squared residuals plus the pull toward 1.
func (ev *evaluator) cost(r, theta []float64) float64 {
	c := 0.0
	for _, v := range r {
		c += v * v
	}
	for _, t := range theta {
		c += ev.w2 * t * t
	}
	return c
}

// levenbergMarquardt minimises cost from theta = 0 (every factor 1),
// starting from the Jacobian the identification pass measured, and
// returns the log factors.
func (ev *evaluator) levenbergMarquardt(ctx context.Context, fs []Factor, r []float64, cols [][]float64) ([]float64, error) {
	theta := make([]float64, len(fs))
	if len(fs) == 0 {
		return theta, nil
	}
	c, mu := ev.cost(r, theta), 1e-2
	for it := 0; it < maxIterations && mu < 1e6; it++ {
		next := clampTheta(fs, add(theta, step(cols, r, theta, mu, ev.w2)))
		rn, err := ev.residuals(ctx, fs, next)
		if err != nil {
			return nil, err
		}
		cn := ev.cost(rn, next)
		if cn >= c {
			mu *= 4
			continue
		}
		done := (c-cn)/c < 1e-4
		theta, r, c, mu = next, rn, cn, mu/3
		if done {
			break
		}
		if cols, err = ev.jacobian(ctx, fs, theta, r, jacobianStep); err != nil {
			return nil, err
		}
	}
	return theta, nil
}

// step solves (JᵀJ + P + mu·diag) δ = −(Jᵀr + P·theta), P the prior's
// curvature.
func step(cols [][]float64, r, theta []float64, mu, w2 float64) []float64 {
	n := len(cols)
	a := mat.NewDense(n, n, nil)
	g := mat.NewVecDense(n, nil)
	for j := range n {
		for k := range n {
			a.Set(j, k, dot(cols[j], cols[k]))
		}
		g.SetVec(j, -dot(cols[j], r)-w2*theta[j])
	}
	for j := range n {
		d := a.At(j, j) + w2
		a.Set(j, j, d+mu*(d+1e-9))
	}
	var d mat.VecDense
	if err := d.SolveVec(a, g); err != nil {
		return make([]float64, n) // singular even when damped: stay
	}
	return d.RawVector().Data
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func add(a, b []float64) []float64 {
	out := make([]float64, len(a))
	for i := range a {
		out[i] = a[i] + b[i]
	}
	return out
}

func clampTheta(fs []Factor, theta []float64) []float64 {
	for k, f := range fs {
		theta[k] = min(max(theta[k], math.Log(f.Lo)), math.Log(f.Hi))
	}
	return theta
}
