package samplers

import (
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/goptuna"
	"github.com/servetune/servetune/search/grid"
	"github.com/servetune/servetune/search/modelfree"
	"github.com/servetune/servetune/search/motpe"
	"github.com/servetune/servetune/space"
)

// spec names a sampler, says what it can optimise and builds it.
type spec struct {
	name string
	// single is set for samplers that optimise the first objective only.
	single bool
	// ownOrder is set for samplers that keep their own order, which a
	// prior cannot guide.
	ownOrder bool
	build    func(b search.Build) (search.Sampler, error)
}

// specs are the samplers a [study] may name, in the order users see them.
func specs() []spec {
	return []spec{
		{name: "motpe", build: motpe.New},
		{name: "tpe", single: true, build: goptuna.NewTPE},
		{name: "random", build: modelfree.NewRandom},
		{name: "grid", ownOrder: true, build: grid.New},
		{name: "cmaes", single: true, build: goptuna.NewCMAES},
		{name: "greedy", single: true, ownOrder: true, build: modelfree.NewGreedySampler},
		{name: "cbo", build: modelfree.NewCBO},
		{name: "linear", build: modelfree.NewLinear},
		{name: "trust", build: modelfree.NewTrust},
		{name: "scoot", build: modelfree.NewSCOOT},
		{name: "headroom", build: modelfree.NewHeadroom},
	}
}

// Names are the sampler names a [study] may name.
func Names() []string {
	var out []string
	for _, s := range specs() {
		out = append(out, s.name)
	}
	return out
}

// Check reports whether the sampler exists and can serve a study
// with that many objectives.
func Check(name string, objectives int) error {
	s, ok := lookup(name)
	if !ok {
		return fmt.Errorf("unknown sampler %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	if s.single && objectives > 1 {
		return fmt.Errorf("%s optimises one objective; this study has %d: use motpe or random", name, objectives)
	}
	return nil
}

func lookup(name string) (spec, bool) {
	for _, s := range specs() {
		if s.name == name {
			return s, true
		}
	}
	return spec{}, false
}

// PriorGuides reports whether a prior can guide the named sampler: not
// one that keeps its own order (grid, greedy). An unknown name is left to
// Check.
func PriorGuides(name string) bool {
	s, ok := lookup(name)
	return !ok || !s.ownOrder
}

// New builds the named sampler over the space, seeded, and teaches
// it the history (a resumed study's finished trials).
func New(ctx context.Context, name string, sp *space.Space, seed int64, history []search.Observation, log zerolog.Logger, opt search.Options) (search.Sampler, error) {
	if err := Check(name, len(sp.Objectives)); err != nil {
		return nil, err
	}
	s, _ := lookup(name)
	b := search.NewBuild(sp, seed, log, !opt.NoFeasibility)
	smp, err := s.build(b)
	if err != nil {
		return nil, fmt.Errorf("sampler %s: %w", name, err)
	}
	if opt.Prior != nil && PriorGuides(name) {
		log.Debug().Msg("the prior screens the space")
		if smp, err = search.WithPrior(ctx, smp, sp, opt.Prior, seed); err != nil {
			return nil, err
		}
	}
	for _, o := range history {
		if err := smp.Tell(ctx, o); err != nil {
			return nil, fmt.Errorf("sampler %s: history: %w", name, err)
		}
	}
	return smp, nil
}
