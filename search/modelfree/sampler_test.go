package modelfree

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// newSampler builds this family's named sampler as samplers.New
// does (the registry sits above this package): seeded, with the
// feasibility model unless turned off, taught the history. No prior.
func newSampler(ctx context.Context, name string, sp *space.Space, seed int64, history []search.Observation, log zerolog.Logger, opt search.Options) (search.Sampler, error) {
	build := map[string]func(search.Build) (search.Sampler, error){
		"random": NewRandom, "greedy": NewGreedySampler, "cbo": NewCBO, "linear": NewLinear,
		"trust": NewTrust, "scoot": NewSCOOT, "headroom": NewHeadroom,
	}[name]
	if build == nil {
		return nil, fmt.Errorf("no %s sampler in this family", name)
	}
	s, err := build(search.NewBuild(sp, seed, log, !opt.NoFeasibility))
	if err != nil {
		return nil, err
	}
	for _, o := range history {
		if err := s.Tell(ctx, o); err != nil {
			return nil, err
		}
	}
	return s, nil
}
