package search

import (
	"math/rand"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

// Build is what a sampler is made from; every sampler family's
// constructor takes one.
type Build struct {
	Space *space.Space
	Seed  int64
	// Rand is seeded with Seed; the guard and the model samplers draw
	// from it.
	Rand *rand.Rand
	Feas *Feasibility // nil when Options.NoFeasibility
	Log  zerolog.Logger
}

// NewBuild is what a sampler over sp is made from for a seed, with the
// feasibility model unless it is turned off.
func NewBuild(sp *space.Space, seed int64, log zerolog.Logger, feasibility bool) Build {
	b := Build{Space: sp, Seed: seed, Rand: rand.New(rand.NewSource(seed)), Log: log}
	if feasibility {
		b.Feas = NewFeasibility(sp)
	}
	return b
}
