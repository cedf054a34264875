package search

import (
	"context"
	"math/rand"

	"github.com/servetune/servetune/space"
)

// Model is what a model sampler contributes: proposals from what it has
// learned. guard turns it into a Sampler.
type Model interface {
	// Draw draws one config.
	Draw() (space.Config, error)
	// Reject says a proposal will not run: it was measured or pending
	// already, or it is predicted infeasible.
	Reject(c space.Config, infeasible bool)
	// Learn teaches the model one finished trial.
	Learn(o Observation) error
}

// Guard is the behaviour every model sampler shares, so that a model only
// proposes: never a config told or pending already, nor one the
// feasibility model predicts to fail, while it can find another.
//
// A model may keep proposing measured configs once it is confident;
// after modelAttempts of those, random draws keep the study moving, and
// for a finite space an unmeasured grid point.
type Guard struct {
	sp  *space.Space
	rng *rand.Rand
	// Model proposes; exported so that a family's tests can reach it.
	Model Model
	feas  *Feasibility // nil when off
	told  map[string]bool
}

const modelAttempts, randomAttempts = 20, 100

// StartupTrials is how many seeded random configs precede model-based
// sampling in the model samplers (motpe, tpe, cmaes, cbo, linear, trust,
// scoot), so that a study is reproducible for its seed.
const StartupTrials = 10

// NewGuard makes the model a Sampler over b's space, drawing from b's
// rng and avoiding what b's feasibility model predicts to fail.
func NewGuard(b Build, m Model) *Guard {
	return &Guard{sp: b.Space, rng: b.Rand, Model: m, feas: b.Feas, told: map[string]bool{}}
}

// Ask proposes up to n configs, one at a time: each one joins the
// pending configs the next must differ from, and a liar model is told
// the pending configs and the batch's earlier proposals afresh for each,
// so a batch spreads as peers' trials do and proposes exactly what as
// many single asks would.
func (g *Guard) Ask(_ context.Context, n int, pending []space.Config) ([]space.Config, error) {
	l, ok := g.Model.(Liar)
	if !ok {
		return Batch(g.sp, n, pending, g.askOne)
	}
	lied := append([]space.Config(nil), pending...)
	return Batch(g.sp, n, pending, func(busy map[string]bool) (space.Config, error) {
		undo := l.Lie(lied)
		c, err := g.askOne(busy)
		undo()
		if err == nil {
			lied = append(lied, c)
		}
		return c, err
	})
}

// askOne returns a config neither told nor busy that is not predicted to
// fail; failing that, for an infinite space, the last draw unless it is
// busy (the caller records it as measured or infeasible, and Tell teaches
// the sampler).
func (g *Guard) askOne(busy map[string]bool) (space.Config, error) {
	var last space.Config
	for i := range modelAttempts + randomAttempts {
		c, err := g.draw(i)
		if err != nil {
			return nil, err
		}
		last = c
		if k := ConfigKey(g.sp, c); g.told[k] || busy[k] {
			g.Model.Reject(c, false)
			continue
		}
		if g.feas != nil {
			if bad, _ := g.feas.Predict(c); bad {
				g.Model.Reject(c, true)
				continue
			}
		}
		return c, nil
	}
	if finite(g.sp) {
		return g.unmeasured(busy)
	}
	if busy[ConfigKey(g.sp, last)] {
		return nil, ErrPending
	}
	return last, nil
}

// draw is the model's proposal for the first modelAttempts, then a
// random config.
func (g *Guard) draw(attempt int) (space.Config, error) {
	if attempt < modelAttempts {
		return g.Model.Draw()
	}
	return g.sp.Sample(g.rng), nil
}

// unmeasured is a random grid point neither told nor busy.
func (g *Guard) unmeasured(busy map[string]bool) (space.Config, error) {
	var free []space.Config
	waiting := false
	for _, c := range Grid(g.sp) {
		k := ConfigKey(g.sp, c)
		switch {
		case g.told[k]:
		case busy[k]:
			waiting = true
		default:
			free = append(free, c)
		}
	}
	switch {
	case len(free) > 0:
		return free[g.rng.Intn(len(free))], nil
	case waiting:
		return nil, ErrPending
	}
	return nil, ErrExhausted
}

// Tell records a finished trial.
func (g *Guard) Tell(_ context.Context, o Observation) error {
	g.told[ConfigKey(g.sp, o.Config)] = true
	if g.feas != nil {
		g.feas.Tell(o)
	}
	return g.Model.Learn(o)
}

// finite reports whether every knob of the space has a finite domain.
func finite(sp *space.Space) bool {
	for _, p := range sp.Params {
		if _, ok := p.Grid(); !ok {
			return false
		}
	}
	return true
}
