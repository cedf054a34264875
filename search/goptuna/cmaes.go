package goptuna

import (
	"github.com/c-bata/goptuna"
	"github.com/c-bata/goptuna/cmaes"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// NewCMAES is goptuna's CMA-ES over the numeric knobs that always exist;
// categorical and conditional knobs are left to goptuna's TPE, which alone
// is told the pending configs as lies (lyingStudy says why).
func NewCMAES(b search.Build) (search.Sampler, error) {
	// The space is given explicitly: goptuna's own intersection of past
	// trials' distributions compares them with != and panics on
	// categoricals.
	numeric := map[string]any{}
	for _, p := range b.Space.Params {
		if p.Kind != space.Categorical && p.When == nil {
			numeric[p.Name] = distribution(p)
		}
	}
	m, err := newStudyModel(b,
		goptuna.StudyOptionRelativeSampler(cmaes.NewSampler(cmaes.SamplerOptionSeed(b.Seed))),
		goptuna.StudyOptionDefineSearchSpace(numeric))
	if err != nil {
		return nil, err
	}
	return search.NewGuard(b, lyingStudy{m}), nil
}
