package search

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"sync"

	"github.com/servetune/servetune/space"
)

// Prior predicts a config's objective values (space order) without
// measuring it, and whether it would start at all (feasible false: out
// of memory or refused). The simulator is the prior servetune wires in;
// search does not import it.
type Prior interface {
	Predict(c space.Config) (values []float64, feasible bool)
}

// Prior sampling constants. screenStart configs are predicted when the
// study starts and screenPerAsk more at each proposal, so the screened
// set grows with the study without a long start-up. The first warmStart
// proposals come from the prior alone; after that every priorEvery-th,
// or every distrustEvery-th once measurements show the prior ranks
// configs badly. One in exploreEvery configs the prior predicts
// infeasible runs anyway, so a wrong memory plan cannot hide a region.
const (
	screenStart   = 256
	screenPerAsk  = 3
	warmStart     = 3
	priorEvery    = 2
	distrustEvery = 5
	exploreEvery  = 5
)

// priorSampler decorates a sampler with a prior: it proposes first from
// the region the prior rates best (corrected by what real trials taught
// it), keeps the inner sampler's proposals off configs the prior predicts
// to fail, and leaves the rest to the inner sampler, which is told every
// trial. It never only follows the prior: the inner sampler keeps at
// least every other proposal, so a wrong prior slows a study, never traps
// it.
type priorSampler struct {
	inner Sampler
	sp    *space.Space
	prior Prior
	rng   *rand.Rand
	cands map[string]*candidate
	order []string // candidate keys in screening order (determinism)
	told  map[string]bool
	resid *residual
	asked int
	// filtered counts inner proposals skipped as predicted infeasible.
	filtered int
	trust    priorTrust
	// incumbent is the best measured config on the first objective; its
	// one-knob neighbours are screened when it changes, so the prior
	// climbs from where reality is best.
	incumbent      space.Config
	incumbentVal   float64
	screenedAround string
}

type candidate struct {
	cfg      space.Config
	values   []float64
	feasible bool
}

// WithPrior wraps inner so that prior guides it; see priorSampler.
func WithPrior(inner Sampler, sp *space.Space, p Prior, seed int64) Sampler {
	ps := &priorSampler{incumbentVal: math.NaN(), inner: inner, sp: sp, prior: p, rng: rand.New(rand.NewSource(seed ^ 0x9e3779b9)),
		cands: map[string]*candidate{}, told: map[string]bool{}, resid: newResidual(len(sp.Objectives))}
	ps.screen(screenStart)
	return ps
}

// screen predicts up to n new distinct configs that satisfy the rules.
func (ps *priorSampler) screen(n int) {
	var batch []space.Config
	seen := map[string]bool{}
	for tries := 0; n > 0 && tries < 20*n; tries++ {
		c := ps.sp.WithTargetEngine(ps.sp.Sample(ps.rng))
		k := configKey(ps.sp, c)
		if ps.cands[k] != nil || seen[k] || ps.sp.Check(c) != nil {
			continue
		}
		seen[k] = true
		batch = append(batch, c)
		n--
	}
	ps.predictAll(batch)
}

// predictAll predicts configs on every core at once — the prior is a
// simulator, tens of milliseconds a config — and records them in the
// given order, so the result does not depend on scheduling.
func (ps *priorSampler) predictAll(cs []space.Config) {
	type prediction struct {
		values   []float64
		feasible bool
	}
	out := make([]prediction, len(cs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, c := range cs {
		if ps.cands[configKey(ps.sp, c)] != nil {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i].values, out[i].feasible = ps.prior.Predict(c)
		}()
	}
	wg.Wait()
	for i, c := range cs {
		k := configKey(ps.sp, c)
		if ps.cands[k] != nil {
			continue
		}
		v, ok := out[i].values, out[i].feasible
		ps.cands[k] = &candidate{cfg: c, values: v, feasible: ok && len(v) == len(ps.sp.Objectives)}
		ps.order = append(ps.order, k)
	}
}

func (ps *priorSampler) predict(c space.Config) *candidate {
	k := configKey(ps.sp, c)
	if cd := ps.cands[k]; cd != nil {
		return cd
	}
	v, ok := ps.prior.Predict(c)
	cd := &candidate{cfg: c, values: v, feasible: ok && len(v) == len(ps.sp.Objectives)}
	ps.cands[k] = cd
	ps.order = append(ps.order, k)
	return cd
}

// Ask proposes up to n configs, each differing from pending and from the
// others of the batch.
func (ps *priorSampler) Ask(n int, pending []space.Config) ([]space.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("ask for %d configs: at least 1", n)
	}
	busy := append([]space.Config(nil), pending...)
	var out []space.Config
	for len(out) < n {
		c, err := ps.askOne(busy)
		if len(out) > 0 && (errors.Is(err, ErrExhausted) || errors.Is(err, ErrPending)) {
			break
		}
		if err != nil {
			return nil, err
		}
		busy = append(busy, c)
		out = append(out, c)
	}
	return out, nil
}

func (ps *priorSampler) askOne(busy []space.Config) (space.Config, error) {
	ps.screen(screenPerAsk)
	ps.screenNeighbours()
	ps.asked++
	if ps.priorTurn() {
		if c, ok := ps.best(keySet(ps.sp, busy)); ok {
			return c, nil
		}
	}
	return ps.innerOne(busy)
}

// priorTurn decides whether this proposal is the prior's.
func (ps *priorSampler) priorTurn() bool {
	if ps.asked <= warmStart {
		return true
	}
	every := priorEvery
	if !ps.trust.ranks() {
		every = distrustEvery
	}
	return ps.asked%every == 0
}

// innerOne asks the inner sampler, skipping proposals the prior predicts
// infeasible while its memory plan has not been caught wrong.
func (ps *priorSampler) innerOne(busy []space.Config) (space.Config, error) {
	var last []space.Config
	for range 8 {
		cs, err := ps.inner.Ask(1, busy)
		if err != nil {
			return nil, err
		}
		last = cs
		cd := ps.predict(ps.sp.WithTargetEngine(cs[0]))
		if cd.feasible || !ps.trust.feasibility() {
			return cs[0], nil
		}
		ps.filtered++
		if ps.filtered%exploreEvery == 0 {
			return cs[0], nil
		}
	}
	return last[0], nil
}

// best is the unmeasured, non-busy, predicted-feasible candidate with the
// best corrected prediction on this proposal's objective (objectives take
// turns, so a multi-objective study spreads along the front).
func (ps *priorSampler) best(busy map[string]bool) (space.Config, bool) {
	obj := ps.asked % len(ps.sp.Objectives)
	sign := 1.0
	if ps.sp.Objectives[obj].Direction == space.Minimize {
		sign = -1
	}
	var bestKey string
	bestScore := math.Inf(-1)
	for _, k := range ps.order {
		cd := ps.cands[k]
		if !cd.feasible || ps.told[k] || busy[k] {
			continue
		}
		v := cd.values[obj]
		if v <= 0 || math.IsNaN(v) {
			continue
		}
		score := sign * (math.Log(v) + ps.resid.predict(obj, cd.cfg))
		if score > bestScore {
			bestKey, bestScore = k, score
		}
	}
	if bestKey == "" {
		return nil, false
	}
	return ps.cands[bestKey].cfg, true
}

// Tell passes the trial to the inner sampler and learns from it how the
// prior errs.
func (ps *priorSampler) Tell(o Observation) error {
	c := ps.sp.WithTargetEngine(o.Config)
	ps.told[configKey(ps.sp, c)] = true
	cd := ps.predict(c)
	ps.trust.tell(o, cd)
	if o.State == Complete && len(o.Values) > 0 && !math.IsNaN(o.Values[0]) &&
		(ps.incumbent == nil || ps.sp.Objectives[0].Better(o.Values[0], ps.incumbentVal)) {
		ps.incumbent, ps.incumbentVal = c, o.Values[0]
	}
	if o.State == Complete && cd.feasible {
		for i := range min(len(o.Values), len(cd.values)) {
			if o.Values[i] > 0 && cd.values[i] > 0 {
				ps.resid.add(i, c, math.Log(o.Values[i]/cd.values[i]))
			}
		}
	}
	return ps.inner.Tell(o)
}

// screenNeighbours predicts every config one knob away from the
// incumbent (finite knobs only), once per incumbent.
func (ps *priorSampler) screenNeighbours() {
	if ps.incumbent == nil {
		return
	}
	k := configKey(ps.sp, ps.incumbent)
	if k == ps.screenedAround {
		return
	}
	ps.screenedAround = k
	var batch []space.Config
	for _, p := range ps.sp.Params {
		vals, ok := p.Grid()
		if !ok {
			continue
		}
		for _, v := range vals {
			c := ps.incumbent.Clone()
			c[p.Name] = v
			c = ps.sp.WithTargetEngine(ps.repair(c))
			if ps.sp.Check(c) == nil {
				batch = append(batch, c)
			}
		}
	}
	ps.predictAll(batch)
}

// repair makes a config changed by one knob consistent with the space's
// conditions: knobs whose condition no longer holds are dropped, knobs
// that became active get a random value.
func (ps *priorSampler) repair(c space.Config) space.Config {
	order, err := ps.sp.Order()
	if err != nil {
		order = ps.sp.Params
	}
	for _, p := range order {
		_, has := c[p.Name]
		switch active := ps.sp.Active(p, c); {
		case !active && has:
			delete(c, p.Name)
		case active && !has:
			c[p.Name] = p.Random(ps.rng)
		}
	}
	return c
}
