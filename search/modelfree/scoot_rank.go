package modelfree

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// scootSurrogate is one ranking's models: the regressor of the
// standardised score, the feasibility classifier and the best score.
type scootSurrogate struct {
	reg, cls *forest
	// lin, when set, is a Bayesian linear model of the scores that reg
	// fits the residuals of.
	lin  *linearModel
	best float64
}

// features is cbo's encoding of c followed by its family indicators,
// computed once per config.
func (m *scootModel) features(c space.Config) []float64 {
	k := search.ConfigKey(m.sp, c)
	if x, ok := m.enc[k]; ok {
		return x
	}
	if m.enc == nil {
		m.enc = map[string][]float64{}
	}
	base := m.encode(c)
	fam := m.fam.encode(c)
	x := append(base, fam...)
	// family × each numeric position: a knob's effect (memory
	// fraction's, above all) may differ by family.
	for _, f := range fam {
		for j, v := range base {
			if m.numeric[j] {
				x = append(x, f*v)
			}
		}
	}
	m.enc[k] = x
	return x
}

// fit grows the two forests on what was told; ok is false while no trial
// completed.
func (m *scootModel) fit() (s scootSurrogate, ok bool) {
	xs, ys, clsX, clsY := trainingSets(m.obs, m.scores(), m.features)
	if len(xs) == 0 {
		return s, false
	}
	ys = standardise(ys)
	s.best = math.Inf(-1)
	for _, y := range ys {
		s.best = max(s.best, y)
	}
	s.cls = growForest(clsX, clsY, m.rng)
	if lin := fitLinear(xs, ys); lin.ok {
		s.lin = lin
		res := make([]float64, len(ys))
		for i, x := range xs {
			res[i] = ys[i] - dot(lin.mean, x)
		}
		ys = res
	}
	s.reg = growForest(xs, ys, m.rng)
	return s, true
}

// scores are the observations' scores, larger better, NaN for those that
// say nothing: with one objective the log of the oriented value (a
// throughput's effects multiply), with several cbo's ParEGO scores.
// Pruned trials get the worst score measured.
func (m *scootModel) scores() []float64 {
	if len(m.sp.Objectives) > 1 {
		return m.scalarise()
	}
	out := make([]float64, len(m.obs))
	worst := math.Inf(1)
	dir := 1.0
	if m.sp.Objectives[0].Direction == space.Minimize {
		dir = -1
	}
	for i, o := range m.obs {
		out[i] = math.NaN()
		if o.State == search.Complete && len(o.Values) > 0 && o.Values[0] > 0 {
			out[i] = dir * math.Log(o.Values[0])
			worst = min(worst, out[i])
		}
	}
	for i, o := range m.obs {
		if o.State == search.Pruned && !math.IsInf(worst, 1) {
			out[i] = worst
		}
	}
	return out
}

// acquisition is expected improvement times the probability of
// feasibility at features x.
func (s scootSurrogate) acquisition(x []float64) float64 {
	mu, sd := s.reg.predict(x)
	if s.lin != nil {
		mu += dot(s.lin.mean, x)
		sd = math.Sqrt(sd*sd + linearVariance(s.lin, x))
	}
	p, _ := s.cls.predict(x)
	return expectedImprovement(mu, sd, s.best+scootXi) * p
}

// byAcquisition orders cs (features xs) by acquisition, best first.
func (m *scootModel) byAcquisition(s scootSurrogate, cs []space.Config, xs [][]float64) []space.Config {
	acq := make([]float64, len(cs))
	for i, x := range xs {
		acq[i] = s.acquisition(x)
	}
	return search.BestFirst(cs, acq)
}

// featuresOf is the features of each of cs.
func (m *scootModel) featuresOf(cs []space.Config) [][]float64 {
	xs := make([][]float64, len(cs))
	for i, c := range cs {
		xs[i] = m.features(c)
	}
	return xs
}

// rankGlobal orders the unmeasured candidates by acquisition; nil while
// nothing completed.
func (m *scootModel) rankGlobal() []space.Config {
	s, ok := m.fit()
	if !ok {
		return nil
	}
	cs, xs := m.globalCandidates()
	return m.byAcquisition(s, cs, xs)
}

// globalCandidates are every unmeasured config of a small finite space
// (features encoded once), else cbo's random configs and mutations of
// its best ones, and mutations of each family's best.
func (m *scootModel) globalCandidates() ([]space.Config, [][]float64) {
	told := search.KeySet(m.sp, m.observed())
	if g := m.finiteGrid(); g != nil {
		if m.gridX == nil {
			m.gridX, m.gridKeys = make([][]float64, len(g)), make([]string, len(g))
			for i, c := range g {
				m.gridX[i], m.gridKeys[i] = m.features(c), search.ConfigKey(m.sp, c)
			}
			m.enc = nil // the grid's features are kept here; the cache only served them once
		}
		var cs []space.Config
		var xs [][]float64
		for i, c := range g {
			if !told[m.gridKeys[i]] {
				cs, xs = append(cs, c), append(xs, m.gridX[i])
			}
		}
		return cs, xs
	}
	out := m.candidates(m.scores())
	for _, c := range m.familyBests() {
		for range cboMutations {
			if x := m.mutate(c); !told[search.ConfigKey(m.sp, x)] && m.sp.Check(m.sp.WithTargetEngine(x)) == nil {
				out = append(out, x)
			}
		}
	}
	return out, m.featuresOf(out)
}

func (m *scootModel) observed() []space.Config {
	out := make([]space.Config, len(m.obs))
	for i, o := range m.obs {
		out[i] = o.Config
	}
	return out
}

// familyBests is the best-scoring completed config of each family.
func (m *scootModel) familyBests() []space.Config {
	scores := m.scores()
	best := map[string]int{}
	var keys []string
	for i, o := range m.obs {
		if math.IsNaN(scores[i]) || o.State != search.Complete {
			continue
		}
		k := m.fam.key(o.Config)
		j, seen := best[k]
		if !seen {
			keys = append(keys, k)
		}
		if !seen || scores[i] > scores[j] {
			best[k] = i
		}
	}
	out := make([]space.Config, len(keys))
	for n, k := range keys {
		out[n] = m.obs[best[k]].Config
	}
	return out
}

// rankLocal orders the open configs nearest the incumbent (one knob
// away, two once those are all measured or ruled out) by acquisition;
// empty when there is none.
func (m *scootModel) rankLocal() []space.Config {
	s, ok := m.fit()
	inc, hasInc := m.incumbent()
	if !ok || !hasInc {
		return []space.Config{}
	}
	told := search.KeySet(m.sp, m.observed())
	walker := &trustModel{cboModel: m.cboModel}
	ring := []space.Config{inc}
	for range trustRadius {
		ring = walker.neighbours(ring)
		var open []space.Config
		for _, c := range ring {
			if !told[search.ConfigKey(m.sp, c)] && !m.ruledOut(c) {
				open = append(open, c)
			}
		}
		if len(open) > 0 {
			return m.byAcquisition(s, open, m.featuresOf(open))
		}
	}
	return []space.Config{}
}

// incumbent is the completed config with the best score.
func (m *scootModel) incumbent() (space.Config, bool) {
	scores := m.scores()
	best := -1
	for i, o := range m.obs {
		if o.State == search.Complete && !math.IsNaN(scores[i]) && (best < 0 || scores[i] > scores[best]) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	return m.obs[best].Config, true
}

// linearVariance is the posterior variance of w·[1, x] under lin.
func linearVariance(lin *linearModel, x []float64) float64 {
	row := mat.NewVecDense(len(x)+1, append([]float64{1}, x...))
	var z mat.VecDense
	if err := lin.chol.SolveVecTo(&z, row); err != nil {
		return 0
	}
	return max(mat.Dot(row, &z), 0)
}
