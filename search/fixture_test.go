package search

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

// The prior's tests decorate a random sampler. The sampler families and
// their registry (search/samplers) sit above this package, so these
// fixtures build that sampler here as samplers.New builds
// "random": a seeded random model behind the guard, with the feasibility
// model unless it is turned off, the prior's decoration, then the
// history.

// NewSampler builds the random sampler as samplers.New does; it
// knows no other name.
func NewSampler(ctx context.Context, name string, sp *space.Space, seed int64, history []Observation, log zerolog.Logger, opt Options) (Sampler, error) {
	if name != "random" {
		return nil, fmt.Errorf("test fixture: sampler %q: only random", name)
	}
	smp, err := newRandom(NewBuild(sp, seed, log, !opt.NoFeasibility))
	if err != nil {
		return nil, err
	}
	if opt.Prior != nil {
		if smp, err = WithPrior(ctx, smp, sp, opt.Prior, seed); err != nil {
			return nil, err
		}
	}
	for _, o := range history {
		if err := smp.Tell(ctx, o); err != nil {
			return nil, err
		}
	}
	return smp, nil
}

// newRandom is modelfree.NewRandom.
func newRandom(b Build) (Sampler, error) {
	return NewGuard(b, randomModel{sp: b.Space, rng: b.Rand}), nil
}

// randomModel is modelfree's: seeded uniform draws.
type randomModel struct {
	sp  *space.Space
	rng *rand.Rand
}

func (r randomModel) Draw() (space.Config, error) { return r.sp.Sample(r.rng), nil }

func (randomModel) Reject(space.Config, bool) {}

func (randomModel) Learn(Observation) error { return nil }
