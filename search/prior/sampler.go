package prior

import (
	"context"
	"errors"
	"fmt"
	"math/rand"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

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

// sampler is the inner sampler decorated with a prior: it proposes first
// from the region the prior rates best (corrected by what real trials
// taught it), keeps the inner sampler's proposals off configs the prior
// predicts to fail, and leaves the rest to the inner sampler, which is
// told every trial. It never only follows the prior: past the warm start
// the inner sampler keeps its turns (every other one with one objective,
// at least one in ten with several; local search and memory probes take
// only some of them), so a wrong prior slows a study, never traps it.
//
// It is a pipeline: the shared state (the candidate table and what the
// study taught the prior) is read by proposers that each own their own
// state, tried in order at each proposal; the first that proposes wins.
type sampler struct {
	st      *state
	inner   search.Sampler
	machine machineFollower
	turns   turnTaker
	local   *localSearch
	// propose are the proposers in the order Ask tries them: the prior's
	// own pick, a memory probe, local search, the inner sampler.
	propose []proposer
}

// proposer is one stage of the prior's pipeline: a config, and the origin
// it is recorded with, or nil to leave the proposal to the next stage.
type proposer interface {
	proposal(ctx context.Context, t proposalTurn) (space.Config, string, error)
}

// proposalTurn is what a proposer is asked with: the configs running or
// asked in this batch (and their keys), and whether the proposal is the
// prior's own turn.
type proposalTurn struct {
	busy  []space.Config
	keys  map[string]bool
	prior bool
}

// New wraps inner so that prior guides it; see sampler. Its
// start-up screening stops as soon as ctx is cancelled (then it returns
// ctx's error), and so do the predictions of its later proposals.
func New(ctx context.Context, inner search.Sampler, sp *space.Space, p search.Prior, seed int64) (search.Sampler, error) {
	st := newState(sp, p, rand.New(rand.NewSource(seed^0x9e3779b9)))
	ps := &sampler{st: st, inner: inner, machine: machineFollower{st: st}, turns: turnTaker{st: st}, local: &localSearch{st: st}}
	ps.propose = []proposer{&picker{st: st, front: front{st: st}, engines: engineProbe{st: st}},
		&memoryProbe{st: st}, ps.local, &innerProposer{st: st, inner: inner}}
	st.startUp(ctx, knownConfigs(p))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ps, nil
}

// Ask proposes up to n configs, each differing from pending and from the
// others of the batch.
func (ps *sampler) Ask(ctx context.Context, n int, pending []space.Config) ([]space.Config, error) {
	if n < 1 {
		return nil, fmt.Errorf("ask for %d configs: at least 1", n)
	}
	busy := append([]space.Config(nil), pending...)
	var out []space.Config
	for len(out) < n {
		c, err := ps.askOne(ctx, busy)
		if len(out) > 0 && (errors.Is(err, search.ErrExhausted) || errors.Is(err, search.ErrPending)) {
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

// askOne screens a little more, decides whose turn it is, and asks the
// proposers in order.
func (ps *sampler) askOne(ctx context.Context, busy []space.Config) (space.Config, error) {
	ps.machine.follow(ctx)
	tab := ps.st.tab
	tab.screen(ctx, screenPerAsk)
	tab.screenAround(ctx, ps.st.hist.incumbent)
	ps.st.asked++
	t := proposalTurn{busy: busy, keys: search.KeySet(ps.st.sp, busy), prior: ps.turns.priorTurn()}
	for _, p := range ps.propose {
		c, origin, err := p.proposal(ctx, t)
		if err != nil {
			return nil, err
		}
		if c != nil {
			ps.st.note(ctx, c, origin)
			return c, nil
		}
	}
	return nil, search.ErrExhausted // unreachable: the inner sampler always answers
}

// Tell passes the trial to the inner sampler and learns from it how the
// prior errs.
func (ps *sampler) Tell(ctx context.Context, o search.Observation) error {
	c := ps.st.sp.WithTargetEngine(o.Config)
	cd := ps.st.tellTold(ctx, o, c)
	if ps.st.tellMeasured(o, c, cd) {
		ps.local.tell(c, o.Values[0])
	}
	return ps.inner.Tell(ctx, o)
}
