package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"

	"github.com/servetune/servetune/space"
)

// Prior predicts a config's objective values (space order) without
// measuring it, and whether it would start at all (feasible false: out
// of memory or refused). The simulator is the prior servetune wires in;
// search does not import it.
//
// A prediction stops when ctx is cancelled (it is then worth nothing:
// callers check ctx before using it).
type Prior interface {
	Predict(ctx context.Context, c space.Config) (values []float64, feasible bool)
}

// Prior sampling constants. screenStart configs are screened when the
// study starts and screenPerAsk more at each proposal, so the screened
// set grows with the study without a long start-up; the refineTop best
// screened configs of each objective (and the screened front) are fully
// predicted, at most refinePerAsk more at each proposal. The first
// warmStart proposals come from the prior alone; after that every
// priorEvery-th, fewer as its measured prediction error grows (see
// priorEveryFor), and at most every distrustEvery-th once measurements
// show the prior ranks configs badly. One in exploreEvery configs the prior
// predicts infeasible runs anyway, so a wrong memory plan cannot hide a
// region.
const (
	screenStart   = 512
	screenPerAsk  = 8
	refineTop     = 12
	refinePerAsk  = 4
	climbSteps    = 8
	climbStarts   = 3
	nearTie       = 0.05 // log-ratio: screening values within ~5%
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
	// around holds the configs whose neighbours were screened.
	around map[string]bool
	// measured are the completed trials' values (the front pickHV extends),
	// measuredCfgs the same trials with their configs (prior_front.go).
	measured     [][]float64
	measuredCfgs []measuredConfig
	// prunedCfgs are the pruned trials with their projected values
	// (residual_pruned.go).
	prunedCfgs []measuredConfig
	// twins holds the predictions of the configs told (valuesKey).
	twins map[string]bool
	resid *residual
	asked int
	picks int // the prior's own proposals so far
	// localSt is local search's state (prior_local.go).
	localSt localState
	// budget is how many full predictions the current proposal may still
	// make (-1: no limit, at start-up).
	budget int
	// filtered counts inner proposals skipped as predicted infeasible.
	filtered int
	trust    priorTrust
	// regions is the trust per region (prior_region.go); pruned the
	// pruned configs the prior may propose again (prior_revisit.go).
	regions *regionTrust
	pruned  map[string]*prunedConfig
	// incumbent is the best measured config on the first objective.
	incumbent    space.Config
	incumbentVal float64
	// proposed says who proposed each config asked, and what the prior
	// predicted for it (Explain).
	proposed map[string]Proposal
	// memory is the memory plan learnt from the trials (prior_memory.go),
	// nil when the prior cannot be asked about other machines.
	memory *memoryModel
	probes probeState // memory probes (prior_probe.go)
	// machine is the machine the prior predicts on (prior_machine.go);
	// zero: the card.
	machine [2]float64
}

// candidate is a screened config: fast is its screening prediction,
// values its full one once refined.
type candidate struct {
	cfg      space.Config
	fast     []float64
	fastOK   bool
	values   []float64
	feasible bool
	refined  bool
}

// WithPrior wraps inner so that prior guides it; see priorSampler. Its
// start-up screening stops as soon as ctx is cancelled (then it returns
// ctx's error), and so do the predictions of its later proposals.
func WithPrior(ctx context.Context, inner Sampler, sp *space.Space, p Prior, seed int64) (Sampler, error) {
	ps := &priorSampler{incumbentVal: math.NaN(), budget: -1, inner: inner, sp: sp, prior: p, rng: rand.New(rand.NewSource(seed ^ 0x9e3779b9)),
		cands: map[string]*candidate{}, told: map[string]bool{}, around: map[string]bool{}, twins: map[string]bool{}, resid: newResidual(len(sp.Objectives)),
		regions: newRegionTrust(), pruned: map[string]*prunedConfig{}, memory: newMemoryModel(p)}
	ps.screenAll(ctx, knownConfigs(p)) // a resumed study's screening, kept with it
	ps.screen(ctx, screenStart-len(ps.order))
	ps.climb(ctx)
	ps.refine(ctx, len(sp.Objectives)*2*refineTop)
	ps.climbFull(ctx)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ps, nil
}

// predict returns c's candidate, fully predicted.
func (ps *priorSampler) predict(ctx context.Context, c space.Config) *candidate {
	k := ConfigKey(ps.sp, c)
	cd := ps.cands[k]
	if cd == nil {
		cd = &candidate{cfg: c}
		ps.cands[k] = cd
		ps.order = append(ps.order, k)
	}
	if !cd.refined {
		v, ok := ps.predictFull(ctx, c)
		if ctx.Err() != nil {
			return cd // cut short: not a prediction, and the run is over
		}
		cd.values, cd.feasible, cd.refined = v, ok && len(v) == len(ps.sp.Objectives), true
		if cd.fast == nil {
			cd.fast, cd.fastOK = cd.values, cd.feasible
		}
	}
	return cd
}

// Ask proposes up to n configs, each differing from pending and from the
// others of the batch.
func (ps *priorSampler) Ask(ctx context.Context, n int, pending []space.Config) ([]space.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("ask for %d configs: at least 1", n)
	}
	busy := append([]space.Config(nil), pending...)
	var out []space.Config
	for len(out) < n {
		c, err := ps.askOne(ctx, busy)
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

func (ps *priorSampler) askOne(ctx context.Context, busy []space.Config) (space.Config, error) {
	ps.followMachine(ctx)
	ps.screen(ctx, screenPerAsk)
	ps.screenAround(ctx, ps.incumbent)
	ps.asked++
	turn := ps.priorTurn()
	if turn {
		ps.prepareFront(ctx)
		ps.budget = refinePerAsk
		ps.refine(ctx, refinePerAsk)
		ps.climbFull(ctx)
		ps.budget = -1
		if c, ok := ps.pick(KeySet(ps.sp, busy)); ok {
			ps.note(ctx, c, ps.originOf(c))
			return c, nil
		}
	}
	if c, ok := ps.probe(ctx, KeySet(ps.sp, busy), turn); ok {
		ps.note(ctx, c, "prior") // a probe is the prior's proposal
		return c, nil
	}
	if c, ok := ps.local(ctx, busy, turn); ok {
		ps.note(ctx, c, "prior")
		return c, nil
	}
	c, err := ps.innerOne(ctx, busy)
	if err == nil {
		ps.note(ctx, c, "sampler")
	}
	return c, err
}

// priorTurn decides whether this proposal is the prior's.
func (ps *priorSampler) priorTurn() bool {
	if ps.asked <= warmStart {
		return true
	}
	if len(ps.sp.Objectives) > 1 {
		return ps.frontTurn() // prior_front_share.go
	}
	return ps.asked%ps.trust.every() == 0
}

// innerOne asks the inner sampler, skipping proposals the prior predicts
// infeasible while its memory plan has not been caught wrong.
func (ps *priorSampler) innerOne(ctx context.Context, busy []space.Config) (space.Config, error) {
	var last []space.Config
	for range 8 {
		cs, err := ps.inner.Ask(ctx, 1, busy)
		if err != nil {
			return nil, err
		}
		last = cs
		run, explore := ps.innerVerdict(ctx, ps.sp.WithTargetEngine(cs[0]))
		if run {
			return cs[0], nil
		}
		ps.filtered++
		if explore && ps.filtered%exploreEvery == 0 {
			return cs[0], nil
		}
	}
	return ps.memoryFallback(KeySet(ps.sp, busy), last[0]), nil
}

// Tell passes the trial to the inner sampler and learns from it how the
// prior errs.
func (ps *priorSampler) Tell(ctx context.Context, o Observation) error {
	c := ps.sp.WithTargetEngine(o.Config)
	ps.told[ConfigKey(ps.sp, c)] = true
	cd := ps.predict(ctx, c)
	ps.trust.tell(o, cd)
	ps.tellRegions(o, c, cd)
	ps.tellPruned(o, c)
	ps.tellMemory(o, c)
	if cd.feasible {
		ps.twins[valuesKey(cd.values)] = true
	}
	done := o.State == Complete && len(o.Values) == len(ps.sp.Objectives) && !HasNaN(o.Values)
	if done {
		ps.measured = append(ps.measured, o.Values)
		ps.measuredCfgs = append(ps.measuredCfgs, measuredConfig{c, o.Values})
		ps.localSt.tell(c, o.Values[0])
		if ps.incumbent == nil || ps.sp.Objectives[0].Better(o.Values[0], ps.incumbentVal) {
			ps.incumbent, ps.incumbentVal = c, o.Values[0]
		}
	}
	if done && cd.feasible && o.Values[0] > 0 && cd.values[0] > 0 {
		miss := math.Log(o.Values[0]/cd.values[0]) - ps.resid.predict(0, c)
		ps.trust.miss(miss)
		ps.regions.miss(c, math.Abs(miss))
	}
	if o.State == Pruned && len(o.Values) == len(ps.sp.Objectives) {
		mc := measuredConfig{c, o.Values}
		ps.prunedCfgs = append(ps.prunedCfgs, mc)
		ps.learnPruned(mc, cd)
	}
	if done && cd.feasible {
		for i := range o.Values {
			if o.Values[i] > 0 && cd.values[i] > 0 {
				ps.resid.add(i, c, math.Log(o.Values[i]/cd.values[i]))
			}
		}
	}
	return ps.inner.Tell(ctx, o)
}
