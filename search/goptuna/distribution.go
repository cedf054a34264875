package goptuna

import (
	"math"

	"github.com/c-bata/goptuna"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A knob's goptuna distribution, internal (float) representation
// (search.Internal) and the suggest call that draws it must agree, so that
// history rebuilt from stored configs looks to the sampler exactly like
// configs it proposed.

func distribution(p space.Param) any {
	switch {
	case p.Kind == space.Categorical:
		return goptuna.CategoricalDistribution{Choices: choices(p)}
	case p.Log && p.Kind == space.Int:
		return goptuna.LogUniformDistribution{Low: p.Low, High: p.High + 1 - 1e-9}
	case p.Log:
		return goptuna.LogUniformDistribution{Low: p.Low, High: p.High}
	case p.Kind == space.Int && p.Step > 1:
		return goptuna.StepIntUniformDistribution{Low: int(p.Low), High: int(p.High), Step: int(p.Step)}
	case p.Kind == space.Int:
		return goptuna.IntUniformDistribution{Low: int(p.Low), High: int(p.High)}
	case p.Step > 0:
		return goptuna.DiscreteUniformDistribution{Low: p.Low, High: p.High, Q: p.Step}
	}
	return goptuna.UniformDistribution{Low: p.Low, High: p.High}
}

func choices(p space.Param) []string {
	out := make([]string, len(p.Values))
	for i, v := range p.Values {
		out[i] = space.FormatValue(v)
	}
	return out
}

func suggest(tr *goptuna.Trial, p space.Param) (any, error) {
	switch {
	case p.Kind == space.Categorical:
		cs := choices(p)
		s, err := tr.SuggestCategorical(p.Name, cs)
		if err != nil {
			return nil, err
		}
		for i, c := range cs {
			if c == s {
				return p.Values[i], nil
			}
		}
		return nil, nil
	case p.Log && p.Kind == space.Int:
		d := distribution(p).(goptuna.LogUniformDistribution)
		f, err := tr.SuggestLogFloat(p.Name, d.Low, d.High)
		return int64(math.Min(math.Floor(f), p.High)), err
	case p.Log:
		return tr.SuggestLogFloat(p.Name, p.Low, p.High)
	case p.Kind == space.Int && p.Step > 1:
		n, err := tr.SuggestStepInt(p.Name, int(p.Low), int(p.High), int(p.Step))
		return int64(n), err
	case p.Kind == space.Int:
		n, err := tr.SuggestInt(p.Name, int(p.Low), int(p.High))
		return int64(n), err
	case p.Step > 0:
		f, err := tr.SuggestDiscreteFloat(p.Name, p.Low, p.High, p.Step)
		return search.RoundStep(f, p.Step), err
	}
	return tr.SuggestFloat(p.Name, p.Low, p.High)
}
