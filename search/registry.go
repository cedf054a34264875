package search

import (
	"context"
	"fmt"
	"math/rand"
	"strings"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

// spec names a sampler, says what it can optimise and builds it.
type spec struct {
	name string
	// single is set for samplers that optimise the first objective only.
	single bool
	build  func(b build) (Sampler, error)
}

// build is what a sampler is made from.
type build struct {
	sp   *space.Space
	seed int64
	// rng is seeded with seed; guard and the model samplers draw from it.
	rng  *rand.Rand
	feas *Feasibility // nil when Options.NoFeasibility
	log  zerolog.Logger
}

// specs are the samplers a [study] may name, in the order users see them.
func specs() []spec {
	return []spec{
		{name: "motpe", build: newMOTPE},
		{name: "tpe", single: true, build: newTPE},
		{name: "random", build: newRandom},
		{name: "grid", build: newGrid},
		{name: "cmaes", single: true, build: newCMAES},
		{name: "greedy", single: true, build: newGreedy},
		{name: "cbo", build: newCBO},
		{name: "linear", build: newLinear},
		{name: "trust", build: newTrust},
		{name: "scoot", build: newSCOOT},
		{name: "headroom", build: newHeadroom},
	}
}

// SamplerNames are the sampler names a [study] may name.
func SamplerNames() []string {
	var out []string
	for _, s := range specs() {
		out = append(out, s.name)
	}
	return out
}

// CheckSampler reports whether the sampler exists and can serve a study
// with that many objectives.
func CheckSampler(name string, objectives int) error {
	s, ok := lookup(name)
	if !ok {
		return fmt.Errorf("unknown sampler %q: use one of %s", name, strings.Join(SamplerNames(), ", "))
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

// PriorGuides reports whether a prior can guide the named sampler: grid
// and greedy keep their own order.
func PriorGuides(name string) bool { return name != "grid" && name != "greedy" }

// NewSampler builds the named sampler over the space, seeded, and teaches
// it the history (a resumed study's finished trials).
func NewSampler(ctx context.Context, name string, sp *space.Space, seed int64, history []Observation, log zerolog.Logger, opt Options) (Sampler, error) {
	if err := CheckSampler(name, len(sp.Objectives)); err != nil {
		return nil, err
	}
	s, _ := lookup(name)
	b := build{sp: sp, seed: seed, rng: rand.New(rand.NewSource(seed)), log: log}
	if !opt.NoFeasibility {
		b.feas = NewFeasibility(sp)
	}
	smp, err := s.build(b)
	if err != nil {
		return nil, fmt.Errorf("sampler %s: %w", name, err)
	}
	if opt.Prior != nil && PriorGuides(name) {
		if opt.Guide == nil {
			return nil, fmt.Errorf("sampler %s: a prior without Options.Guide to wrap the sampler", name)
		}
		log.Debug().Msg("the prior screens the space")
		if smp, err = opt.Guide(ctx, smp, sp, opt.Prior, seed); err != nil {
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
