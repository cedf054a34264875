package search

import (
	"math/rand"

	"github.com/servetune/servetune/space"
)

// randomModel draws seeded uniform configs; the guard keeps it off told,
// pending and predicted-infeasible ones.
type randomModel struct {
	sp  *space.Space
	rng *rand.Rand
}

func newRandom(b Build) (Sampler, error) {
	return NewGuard(b, randomModel{sp: b.Space, rng: b.Rand}), nil
}

func (r randomModel) Draw() (space.Config, error) { return r.sp.Sample(r.rng), nil }

func (randomModel) Reject(space.Config, bool) {}

func (randomModel) Learn(Observation) error { return nil }
