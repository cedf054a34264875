package modelfree

import (
	"math/rand"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// randomModel draws seeded uniform configs; the guard keeps it off told,
// pending and predicted-infeasible ones.
type randomModel struct {
	sp  *space.Space
	rng *rand.Rand
}

// NewRandom draws seeded random configs, guarded like every model
// sampler.
func NewRandom(b search.Build) (search.Sampler, error) {
	return search.NewGuard(b, randomModel{sp: b.Space, rng: b.Rand}), nil
}

func (r randomModel) Draw() (space.Config, error) { return r.sp.Sample(r.rng), nil }

func (randomModel) Reject(space.Config, bool) {}

func (randomModel) Learn(search.Observation) error { return nil }
