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

func newRandom(b build) (Sampler, error) {
	return newGuard(b, randomModel{sp: b.sp, rng: b.rng}), nil
}

func (r randomModel) propose() (space.Config, error) { return r.sp.Sample(r.rng), nil }

func (randomModel) reject(space.Config, bool) {}

func (randomModel) tell(Observation) error { return nil }
