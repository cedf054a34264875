package modelfree

import (
	"math"
	"math/rand"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// NewLinear is cbo with a Bayesian linear model in place of the forest
// regressor (the "linear" sampler): the forest classifier still keeps
// it off configs likely to fail, and it draws no random configs after
// the start-up (its posterior draws explore).
func NewLinear(b search.Build) (search.Sampler, error) {
	order, err := b.Space.Order()
	if err != nil {
		return nil, err
	}
	return search.NewGuard(b, &cboModel{sp: b.Space, rng: b.Rand, order: order, linear: true}), nil
}

// linearModel is Bayesian linear regression over the forests' features
// (one indicator per categorical value, positions of numeric knobs):
// each knob's value moves the score by its own amount. Drawn from its
// posterior (Thompson sampling) it ranks every config at once; on a
// landscape whose best configs share a few values (GLM-5.2: SGLang, DP
// attention over dp=8, FP8 KV) the main effects point at that family
// after a dozen trials where a forest over 30 points does not.
type linearModel struct {
	mean []float64
	chol mat.Cholesky // of the posterior covariance's inverse
	ok   bool
}

// Linear-model constants: the prior precision of every weight and the
// assumed noise variance of the standardised scores.
const (
	linearPrior = 1.0
	linearNoise = 0.25
)

// fitLinear is the posterior of weights w (with an intercept) of
// y ≈ w·[1, x].
func fitLinear(xs [][]float64, ys []float64) *linearModel {
	d := len(xs[0]) + 1
	a := mat.NewSymDense(d, nil)
	b := make([]float64, d)
	for i := range d {
		a.SetSym(i, i, linearPrior)
	}
	for n, x := range xs {
		row := append([]float64{1}, x...)
		for i := range d {
			b[i] += row[i] * ys[n] / linearNoise
			for j := i; j < d; j++ {
				a.SetSym(i, j, a.At(i, j)+row[i]*row[j]/linearNoise)
			}
		}
	}
	m := &linearModel{}
	if !m.chol.Factorize(a) {
		return m
	}
	var mean mat.VecDense
	if err := m.chol.SolveVecTo(&mean, mat.NewVecDense(d, b)); err != nil {
		return m
	}
	m.mean, m.ok = mean.RawVector().Data, true
	return m
}

// draw is a weight vector from the posterior: mean + U⁻¹z, where
// UᵀU is the posterior precision, so its covariance is the posterior's.
func (m *linearModel) draw(rng *rand.Rand) []float64 {
	d := len(m.mean)
	z := mat.NewVecDense(d, nil)
	for i := range d {
		z.SetVec(i, rng.NormFloat64())
	}
	var u mat.TriDense
	m.chol.UTo(&u)
	var dev mat.VecDense
	if err := dev.SolveVec(&u, z); err != nil {
		return m.mean
	}
	w := make([]float64, d)
	for i := range w {
		w[i] = m.mean[i] + dev.AtVec(i)
	}
	return w
}

// dot is w·[1, x].
func dot(w, x []float64) float64 {
	s := w[0]
	for i, v := range x {
		s += w[i+1] * v
	}
	if math.IsNaN(s) {
		return math.Inf(-1)
	}
	return s
}

// rankLinear orders the candidates (every config of a small space) by a
// draw of the linear model, those the classifier calls likely feasible
// first.
func (m *cboModel) rankLinear(xs [][]float64, ys []float64, cls *forest) []space.Config {
	if len(xs) == 0 {
		return nil
	}
	lin := fitLinear(xs, ys)
	if !lin.ok {
		return nil
	}
	w := lin.draw(m.rng)
	cands := m.finiteGrid()
	if cands == nil {
		cands = m.candidates(nil)
	}
	told := map[string]bool{}
	for _, o := range m.obs {
		told[search.ConfigKey(m.sp, o.Config)] = true
	}
	type scored struct {
		c  space.Config
		s  float64
		ok bool
	}
	var out []scored
	for _, c := range cands {
		if told[search.ConfigKey(m.sp, c)] {
			continue
		}
		x := m.encode(c)
		p, _ := cls.predict(x)
		out = append(out, scored{c, dot(w, x), p >= 0.5})
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].ok != out[b].ok {
			return out[a].ok
		}
		return out[a].s > out[b].s
	})
	cs := make([]space.Config, len(out))
	for i, o := range out {
		cs[i] = o.c
	}
	return cs
}

// cboGridMax: a space of at most this many configs is ranked whole.
const cboGridMax = 20000

// finiteGrid is every config of the space within its rules when the
// space is finite and small (nil otherwise), computed once.
func (m *cboModel) finiteGrid() []space.Config {
	if m.gridDone {
		return m.grid
	}
	m.gridDone = true
	if gridSize(m.order) > cboGridMax {
		return nil
	}
	for _, c := range search.Grid(m.sp) {
		if m.sp.Check(m.sp.WithTargetEngine(c)) == nil {
			m.grid = append(m.grid, c)
		}
	}
	return m.grid
}

// gridSize bounds the number of configs of the knobs' product (inactive
// knobs counted as if active): above cboGridMax when a knob is
// continuous.
func gridSize(order []space.Param) int {
	n := 1
	for _, p := range order {
		vals, ok := p.Grid()
		if !ok || len(vals) > cboGridMax {
			return cboGridMax + 1
		}
		n *= max(1, len(vals))
		if n > cboGridMax {
			return n
		}
	}
	return n
}
