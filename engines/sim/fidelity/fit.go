package fidelity

import (
	"context"
	"fmt"
	"math"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"gonum.org/v1/gonum/mat"
)

// FitOptions bounds a fit.
type FitOptions struct {
	// Iterations of simulate → linearise → solve (default 8).
	Iterations int
	// Ridge pulls each coefficient toward the prior, relative to its prior
	// value, so that what the runs do not identify stays physical
	// (default 0.02).
	Ridge float64
	// Start is where to begin (default the prior); the prior itself is
	// always sim.PriorVLLM.
	Start *sim.Coefficients
	// Seeds, when set, adds the seed reports' vLLM points as rows.
	Seeds *Seeds
	// Progress, when set, hears each iteration's coefficients and error.
	Progress func(iter int, c sim.Coefficients, rmse float64)
}

// row is one measured mean as a linear function of the coefficients:
// a · c ≈ 1 (the features divided by the measured value).
type row struct {
	a [len(sim.Coefficients{})]float64
	w float64
}

// Fit fits the vLLM coefficients to the runs: simulate each with the
// current coefficients, write every stage's mean e2e, TTFT and ITL as
// features · coefficients (the queueing each step implies held fixed),
// solve the bounded, ridge-regularised least squares of relative errors,
// move halfway there, and repeat.
func Fit(ctx context.Context, rp *Replayer, runs []Run, o FitOptions) (sim.Coefficients, error) {
	if o.Iterations == 0 {
		o.Iterations = 8
	}
	if o.Ridge == 0 {
		o.Ridge = 0.02
	}
	prior := sim.PriorVLLM()
	c := prior
	if o.Start != nil {
		c = *o.Start
	}
	for it := 0; it < o.Iterations; it++ {
		var rows []row
		for _, r := range runs {
			s, err := rp.Simulate(ctx, &c, r)
			if err != nil {
				return c, err
			}
			rows = append(rows, runRows(r, s)...)
		}
		if o.Seeds != nil {
			sr, err := seedRows(ctx, rp.Cards, &c, o.Seeds)
			if err != nil {
				return c, err
			}
			rows = append(rows, sr...)
		}
		rows = linear(rows, c)
		next := solve(rows, prior, o.Ridge)
		step := 0.5
		if it == 0 {
			step = 0.7
		}
		for i := range c {
			if sim.Fitted(i) {
				c[i] += step * (next[i] - c[i])
			}
		}
		if o.Progress != nil {
			o.Progress(it, c, rmse(rows, next))
		}
	}
	return c, ctx.Err()
}

// farOff is the prediction/measurement ratio past which a row is left
// out of an iteration: its queue is saturated, so the fixed-queue
// linearisation says nothing true about it; the others pull the
// coefficients until it recovers.
const farOff = 3

func linear(rows []row, c sim.Coefficients) []row {
	keep := rows[:0]
	for _, rw := range rows {
		p := 0.0
		for i := range c {
			p += rw.a[i] * c[i]
		}
		if p < farOff {
			keep = append(keep, rw)
		}
	}
	return keep
}

// runRows linearises a run's stage means; each run weighs the same
// whatever its number of stages.
func runRows(r Run, s *Simulated) []row {
	var out []row
	stages := len(r.Workload.Stages)
	for k := 0; k < stages; k++ {
		real, ok := r.Measured[fmt.Sprintf("stage_%d", k)]
		if !ok {
			if stages == 1 {
				real = r.Measured["summary"]
			} else {
				continue
			}
		}
		lo, hi := stageRange(s.Plan, k)
		ttft, e2e, itl, ok := stageFeatures(s, lo, hi)
		if !ok {
			continue
		}
		w := 1 / float64(stages)
		add := func(f []float64, m *float64) {
			if m == nil || *m <= 0 {
				return
			}
			var rw row
			for i := range rw.a {
				rw.a[i] = f[i] / (*m / 1000)
			}
			rw.w = w
			out = append(out, rw)
		}
		add(e2e, real.E2EMean)
		add(ttft, real.TTFTMean)
		_ = itl // ITL is e2e's share per token: fitting e2e and TTFT fits it

	}
	return out
}

func stageRange(pl bench.Plan, k int) (int, int) {
	lo, hi := pl.StageStarts[k], len(pl.Requests)
	if k+1 < len(pl.StageStarts) {
		hi = pl.StageStarts[k+1]
	}
	return lo, hi
}

// stageFeatures are the mean TTFT and e2e features of the stage's
// successful requests and the mean feature per inter-token gap.
func stageFeatures(s *Simulated, lo, hi int) (ttft, e2e, itl []float64, ok bool) {
	n := len(sim.FeatureNames())
	ttft, e2e, itl = make([]float64, n), make([]float64, n), make([]float64, n)
	count, gaps := 0, 0
	for i := lo; i < hi && i < len(s.Features); i++ {
		f := s.Features[i]
		if f.TTFT == nil {
			continue
		}
		count++
		gaps += f.Gaps
		for j := range n {
			ttft[j] += f.TTFT[j]
			e2e[j] += f.TTFT[j] + f.Decode[j]
			itl[j] += f.Decode[j]
		}
	}
	if count == 0 || gaps == 0 {
		return nil, nil, nil, false
	}
	for j := range n {
		ttft[j] /= float64(count)
		e2e[j] /= float64(count)
		itl[j] /= float64(gaps)
	}
	return ttft, e2e, itl, true
}

// solve minimises Σ w (a·c − 1)² + ridge Σ ((c − prior)/prior)² over the
// fitted coefficients within their bounds (active set: a coefficient that
// would leave its bounds is pinned at the one it crosses and the rest
// re-solved).
func solve(rows []row, prior sim.Coefficients, ridge float64) sim.Coefficients {
	c := prior
	free := map[int]bool{}
	for i := range c {
		if sim.Fitted(i) {
			free[i] = true
		}
	}
	for range len(c) {
		sol := lsq(rows, prior, ridge, c, free)
		pinned := false
		for i, v := range sol {
			lb, ub := lower(i), sim.Upper(i)
			switch {
			case free[i] && v < lb:
				free[i], c[i], pinned = false, lb, true
			case free[i] && v > ub:
				free[i], c[i], pinned = false, ub, true
			case free[i]:
				c[i] = v
			}
		}
		if !pinned {
			return c
		}
	}
	return c
}

func lower(i int) float64 { return sim.Lower(i) }

// lsq solves the regularised least squares for the free coefficients,
// the others held at c.
func lsq(rows []row, prior sim.Coefficients, ridge float64, c sim.Coefficients, free map[int]bool) sim.Coefficients {
	var cols []int
	for i := range c {
		if free[i] {
			cols = append(cols, i)
		}
	}
	out := c
	if len(cols) == 0 {
		return out
	}
	n := len(rows) + len(cols)
	A := mat.NewDense(n, len(cols), nil)
	b := mat.NewVecDense(n, nil)
	for r, rw := range rows {
		sw := math.Sqrt(rw.w)
		rest := 1.0
		for i := range c {
			if !free[i] {
				rest -= rw.a[i] * c[i]
			}
		}
		for j, i := range cols {
			A.Set(r, j, sw*rw.a[i])
		}
		b.SetVec(r, sw*rest)
	}
	sr := math.Sqrt(ridge)
	for j, i := range cols {
		A.Set(len(rows)+j, j, sr/prior[i])
		b.SetVec(len(rows)+j, sr)
	}
	var x mat.VecDense
	if err := x.SolveVec(A, b); err != nil {
		return out
	}
	for j, i := range cols {
		out[i] = x.AtVec(j)
	}
	return out
}

// rmse is the rows' root mean square relative error at c.
func rmse(rows []row, c sim.Coefficients) float64 {
	s, w := 0.0, 0.0
	for _, rw := range rows {
		p := 0.0
		for i := range c {
			p += rw.a[i] * c[i]
		}
		s += rw.w * (p - 1) * (p - 1)
		w += rw.w
	}
	return math.Sqrt(s / w)
}

// LeaveOneOut predicts each run with coefficients fitted on the others,
// starting each refit from start, and with the models' tokens per text
// chunk measured on the others (TokensPerChunk).
func LeaveOneOut(rp *Replayer, runs []Run, start sim.Coefficients, o FitOptions) Predictor {
	return func(ctx context.Context, i int, r Run) (*Simulated, error) {
		rest := append(append([]Run(nil), runs[:i]...), runs[i+1:]...)
		fo := o // folds may run at once (CheckWorkers): each its own options
		st := start
		fo.Start = &st
		c, err := Fit(ctx, rp, rest, fo)
		if err != nil {
			return nil, err
		}
		fold := *rp
		fold.TokensPerChunk = TokensPerChunk(rp.Cards, rest, runs)
		return fold.Simulate(ctx, &c, r)
	}
}
