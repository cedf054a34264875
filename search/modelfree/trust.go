package modelfree

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// trustModel is linear with a local step around the incumbent
// interleaved with its Thompson draws (the "trust" sampler), after
// TuRBO's trust region (Eriksson 2019) on a discrete space: every other
// proposal after the start-up is the unmeasured config nearest the best
// measured one — one knob changed, an ordered knob by one step; two knobs
// once every one-knob neighbour is measured or ruled out — ranked by the
// same kind of posterior draw linear ranks the whole space by. Main
// effects find GLM-5.2's best family; inside it the best config sits at
// the highest memory pressure that still fits (memory fraction against
// chunked prefill and running requests), which a model of main effects
// cannot place and a walk from the incumbent reaches.
//
// Near that cliff the feasibility forest is unsure, so both steps keep
// out what the monotone memory-pressure model (Feasibility) rules out: an
// OOM at a pressure rules out every config at least as high with the
// other knobs the same. That model is the sampler's own and learns
// whether or not the study's feasibility learning is on.
type trustModel struct {
	*cboModel
	feas *search.Feasibility
	// local is the ranked region of the current local step, nil until
	// ranked; localNext walks it.
	local     []space.Config
	localNext int
}

// NewTrust is the trust-region sampler (see trustModel).
func NewTrust(b search.Build) (search.Sampler, error) {
	order, err := b.Space.Order()
	if err != nil {
		return nil, err
	}
	lin := &cboModel{sp: b.Space, rng: b.Rand, order: order, linear: true}
	return search.NewGuard(b, &trustModel{cboModel: lin, feas: search.NewFeasibility(b.Space)}), nil
}

const (
	// trustEvery: one proposal in this many after the start-up is local.
	trustEvery = 2
	// trustSkips bounds how many ruled-out configs a global step passes.
	trustSkips = 200
	// trustRadius is the most knobs a local step changes.
	trustRadius = 2
)

func (m *trustModel) Draw() (space.Config, error) {
	if !trustLocalTurn(m.usable(), search.StartupTrials, trustEvery) {
		return m.global()
	}
	if m.local == nil {
		m.local, m.localNext = m.region(), 0
	}
	if m.localNext >= len(m.local) {
		return m.global()
	}
	m.localNext++
	return m.local[m.localNext-1], nil
}

// trustLocalTurn decides whether the proposal after told trials is local:
// none during the start-up, then one in every.
func trustLocalTurn(told, startup, every int) bool {
	return told >= startup && (told-startup)%every == every-1
}

// global is linear's next proposal the memory model does not rule out
// (after trustSkips of those, whatever linear proposes).
func (m *trustModel) global() (space.Config, error) {
	for range trustSkips {
		c, err := m.cboModel.Draw()
		if err != nil {
			return nil, err
		}
		if bad, _ := m.feas.Predict(c); !bad {
			return c, nil
		}
	}
	return m.cboModel.Draw()
}

func (m *trustModel) Learn(o search.Observation) error {
	m.feas.Tell(o)
	m.local = nil
	return m.cboModel.Learn(o)
}

// region ranks the open configs nearest the incumbent by a posterior
// draw of the linear model, best first; empty when there is no
// incumbent or nothing near it is open.
func (m *trustModel) region() []space.Config {
	inc, ok := m.incumbent()
	if !ok {
		return []space.Config{}
	}
	xs, ys := m.regressionData()
	if len(xs) == 0 {
		return []space.Config{}
	}
	lin := fitLinear(xs, standardise(ys))
	if !lin.ok {
		return []space.Config{}
	}
	w := lin.draw(m.rng)
	told := map[string]bool{}
	for _, o := range m.obs {
		told[search.ConfigKey(m.sp, o.Config)] = true
	}
	ring := []space.Config{inc}
	for range trustRadius {
		ring = m.neighbours(ring)
		if open := m.open(ring, told); len(open) > 0 {
			return m.byDraw(open, w)
		}
	}
	return []space.Config{}
}

// open are the configs of cs neither told nor ruled out.
func (m *trustModel) open(cs []space.Config, told map[string]bool) []space.Config {
	var out []space.Config
	for _, c := range cs {
		if bad, _ := m.feas.Predict(c); !bad && !told[search.ConfigKey(m.sp, c)] {
			out = append(out, c)
		}
	}
	return out
}

// regressionData is what linear regresses: log scores with one
// objective, ParEGO scores with several.
func (m *trustModel) regressionData() (xs [][]float64, ys []float64) {
	if len(m.sp.Objectives) == 1 {
		return m.logScores()
	}
	for i, s := range m.scalarise() {
		if !math.IsNaN(s) {
			xs, ys = append(xs, m.encode(m.obs[i].Config)), append(ys, s)
		}
	}
	return xs, ys
}

// incumbent is the completed config with the best score (under a fresh
// ParEGO scalarisation with several objectives).
func (m *trustModel) incumbent() (space.Config, bool) {
	best := m.parents(m.scalarise())
	if len(best) == 0 {
		return nil, false
	}
	return m.obs[best[0]].Config, true
}

// byDraw orders cs by w·x, best first.
func (m *trustModel) byDraw(cs []space.Config, w []float64) []space.Config {
	s := make([]float64, len(cs))
	for i, c := range cs {
		s[i] = dot(w, m.encode(c))
	}
	return search.BestFirst(cs, s)
}
