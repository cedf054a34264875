package search

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

type constPrior struct{}

func (constPrior) Predict(context.Context, space.Config) ([]float64, bool) { return []float64{1}, true }

// guided is a sampler wrapped by a Guide: it records what it was given.
type guided struct {
	Sampler
	prior Prior
	seed  int64
}

// NewSampler wraps the sampler it built with Options.Guide when a prior
// is set and may guide it (not grid nor greedy), passing the prior and
// the seed; a prior without a Guide is an error, not a silently
// unguided study.
func TestNewSamplerWrapsWithTheGuide(t *testing.T) {
	sp := testSpace("random")
	guide := func(_ context.Context, inner Sampler, _ *space.Space, p Prior, seed int64) (Sampler, error) {
		return guided{inner, p, seed}, nil
	}
	opt := Options{Prior: constPrior{}, Guide: guide}
	s, err := NewSampler(context.Background(), "random", sp, 11, nil, zerolog.Nop(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := s.(guided); !ok || g.prior != (constPrior{}) || g.seed != 11 {
		t.Fatalf("NewSampler with a prior = %#v, want the guide's wrapper with the prior and seed 11", s)
	}
	if s, err := NewSampler(context.Background(), "grid", sp, 11, nil, zerolog.Nop(), opt); err != nil {
		t.Fatal(err)
	} else if _, ok := s.(guided); ok {
		t.Error("grid keeps its own order, yet the guide wrapped it")
	}
	if _, err := NewSampler(context.Background(), "random", sp, 11, nil, zerolog.Nop(), Options{Prior: constPrior{}}); err == nil {
		t.Error("a prior without a Guide built a sampler; want an error")
	}
}
