package modelfree

import (
	"math"
	"math/rand"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// cboModel is constrained Bayesian optimisation without a prior, for
// unknown hardware or a simulator that is structurally wrong: a random
// forest regressor over the measured configs predicts the objective with
// its uncertainty (the spread over trees, as SMAC does), a random forest
// classifier over every trial that reached the engine predicts whether a
// config completes within memory and SLOs (as SCOOT does), and the next
// config is the candidate with the largest expected improvement times
// probability of feasibility. Candidates are random configs and one- or
// two-knob mutations of the best measured ones, so the search can both
// explore and walk a ridge up to the memory cliff the classifier learns.
//
// Two objectives are scalarised per proposal by an augmented Chebyshev
// function with random weights (ParEGO, Knowles 2006), so successive
// proposals aim at different parts of the front. Pruned trials count as
// feasible with the worst measured value; failed ones say nothing. The
// first search.StartupTrials proposals are seeded random configs. Deterministic
// for a seed.
type cboModel struct {
	sp     *space.Space
	rng    *rand.Rand
	order  []space.Param
	obs    []search.Observation
	ranked []space.Config
	next   int
	// linear ranks by a draw of a Bayesian linear model instead of
	// the forest's expected improvement (the "linear" sampler,
	// cbo_linear.go); grid is then the space's every config when small.
	linear   bool
	grid     []space.Config
	gridDone bool
}

const (
	cboRandomCandidates = 400
	cboParents          = 5
	cboMutations        = 40
	cboXi               = 0.01
	// cboRandomEvery: one proposal in this many is a random config (as
	// SMAC interleaves them), because a forest's spread over trees
	// underrates how little it knows far from what was measured.
	cboRandomEvery = 3
)

// NewCBO is constrained Bayesian optimisation over a random forest
// (see cboModel).
func NewCBO(b search.Build) (search.Sampler, error) {
	order, err := b.Space.Order()
	if err != nil {
		return nil, err
	}
	return search.NewGuard(b, &cboModel{sp: b.Space, rng: b.Rand, order: order}), nil
}

func (m *cboModel) Draw() (space.Config, error) {
	random := !m.linear && m.usable()%cboRandomEvery == cboRandomEvery-1
	if m.usable() < search.StartupTrials || random {
		return m.sp.Sample(m.rng), nil
	}
	if m.ranked == nil {
		m.ranked, m.next = m.rank(), 0
	}
	if m.next >= len(m.ranked) {
		return m.sp.Sample(m.rng), nil
	}
	m.next++
	return m.ranked[m.next-1], nil
}

// Reject needs nothing: the next proposal is the next candidate anyway.
func (m *cboModel) Reject(space.Config, bool) {}

func (m *cboModel) Learn(o search.Observation) error {
	if o.State != search.Failed {
		m.obs = append(m.obs, o)
		m.ranked = nil
	}
	return nil
}

func (m *cboModel) usable() int { return len(m.obs) }

// rank orders fresh candidates by expected improvement times the
// probability of feasibility; nil when nothing completed yet.
func (m *cboModel) rank() []space.Config {
	scores := m.scalarise()
	xs, ys, feasX, feasY := trainingSets(m.obs, scores, m.encode)
	if len(xs) == 0 {
		return nil
	}
	if m.linear {
		cls := growForest(feasX, feasY, m.rng)
		if len(m.sp.Objectives) == 1 {
			xs, ys = m.logScores()
		}
		return m.rankLinear(xs, standardise(ys), cls)
	}
	reg := growForest(xs, standardise(ys), m.rng)
	cls := growForest(feasX, feasY, m.rng)
	best := 0.0
	for i, y := range standardise(ys) {
		if i == 0 || y > best {
			best = y
		}
	}
	cands := m.candidates(scores)
	acq := make([]float64, len(cands))
	for i, c := range cands {
		x := m.encode(c)
		mu, sd := reg.predict(x)
		p, _ := cls.predict(x)
		acq[i] = expectedImprovement(mu, sd, best+cboXi) * p
	}
	return search.BestFirst(cands, acq)
}

// scalarise is each observation's score, larger better: the first
// objective oriented, or with several an augmented Chebyshev value of
// the normalised objectives under fresh random weights. Pruned trials
// get the worst score measured; infeasible ones NaN.
func (m *cboModel) scalarise() []float64 {
	objs := m.sp.Objectives
	w := make([]float64, len(objs))
	sum := 0.0
	for i := range w {
		w[i] = -math.Log(1 - m.rng.Float64())
		sum += w[i]
	}
	lo, hi := m.bounds()
	out := make([]float64, len(m.obs))
	worst := math.Inf(1)
	for i, o := range m.obs {
		out[i] = math.NaN()
		if o.State != search.Complete || len(o.Values) < len(objs) {
			continue
		}
		worstTerm, total := math.Inf(-1), 0.0
		for k, obj := range objs {
			v := orient(obj, o.Values[k])
			n := 0.5
			if hi[k] > lo[k] {
				n = (v - lo[k]) / (hi[k] - lo[k])
			}
			term := w[k] / sum * (1 - n)
			worstTerm, total = max(worstTerm, term), total+term
		}
		out[i] = -worstTerm - 0.05*total
		worst = min(worst, out[i])
	}
	for i, o := range m.obs {
		if o.State == search.Pruned && !math.IsInf(worst, 1) {
			out[i] = worst
		}
	}
	return out
}

// bounds are the oriented objectives' ranges over completed trials.
func (m *cboModel) bounds() (lo, hi []float64) {
	n := len(m.sp.Objectives)
	lo, hi = make([]float64, n), make([]float64, n)
	for k := range lo {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
	}
	for _, o := range m.obs {
		if o.State != search.Complete || len(o.Values) < n {
			continue
		}
		for k, obj := range m.sp.Objectives {
			v := orient(obj, o.Values[k])
			lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
		}
	}
	return lo, hi
}

func orient(obj space.Objective, v float64) float64 {
	if obj.Direction == space.Minimize {
		return -v
	}
	return v
}

// trainingSets is what cbo's and scoot's models learn from: the
// objective model's points are the trials with a score, the feasibility
// classifier's every told trial (a pruned trial did start: it fits).
func trainingSets(obs []search.Observation, scores []float64, encode func(space.Config) []float64) (xs [][]float64, ys []float64, feasX [][]float64, feasY []float64) {
	for i, o := range obs {
		x := encode(o.Config)
		ok := o.State == search.Complete && o.Violation == 0 || o.State == search.Pruned
		feasX, feasY = append(feasX, x), append(feasY, b2f(ok))
		if !math.IsNaN(scores[i]) {
			xs, ys = append(xs, x), append(ys, scores[i])
		}
	}
	return xs, ys, feasX, feasY
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// expectedImprovement of a normal(mu, sd) over target (maximising).
func expectedImprovement(mu, sd, target float64) float64 {
	if sd < 1e-9 {
		return max(mu-target, 0)
	}
	z := (mu - target) / sd
	return (mu-target)*search.NormCDF(z) + sd*math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
}

func standardise(ys []float64) []float64 {
	mean, sd := 0.0, 0.0
	for _, y := range ys {
		mean += y / float64(len(ys))
	}
	for _, y := range ys {
		sd += (y - mean) * (y - mean) / float64(len(ys))
	}
	sd = math.Sqrt(sd)
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = y - mean
		if sd > 0 {
			out[i] /= sd
		}
	}
	return out
}

// logScores are the measured configs' features and the log of their
// oriented first objective (a pruned trial the worst measured), for a
// model of multiplicative effects.
func (m *cboModel) logScores() (xs [][]float64, ys []float64) {
	obj := m.sp.Objectives[0]
	worst := math.Inf(1)
	var pruned [][]float64
	for _, o := range m.obs {
		switch {
		case o.State == search.Complete && len(o.Values) > 0 && o.Values[0] > 0:
			y := math.Log(o.Values[0])
			if obj.Direction == space.Minimize {
				y = -y
			}
			xs, ys = append(xs, m.encode(o.Config)), append(ys, y)
			worst = min(worst, y)
		case o.State == search.Pruned:
			pruned = append(pruned, m.encode(o.Config))
		}
	}
	for _, x := range pruned {
		if !math.IsInf(worst, 1) {
			xs, ys = append(xs, x), append(ys, worst)
		}
	}
	return xs, ys
}
