package studies

import (
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// SpaceOptions is what the space validator needs from the packages below
// it, one builder for `run` and the lab alike: the engines' knobs and
// names, bench's profiles and metrics, the samplers' check, and the
// simulator's cards (nil: the built-in catalogue) for a simulated target.
// engineFiles are the --engines declarations.
func SpaceOptions(cards *sim.Cards, engineFiles ...string) space.Options {
	if cards == nil {
		cards = sim.DefaultCards()
	}
	return space.Options{
		EngineFiles: engineFiles,
		Supports:    engines.Supports,
		Engines:     engines.Names(),
		Profile:     bench.Lookup,
		Metric:      bench.KnownMetric,
		Sampler:     search.CheckSampler,
		CheckTarget: simCards(cards),
	}
}

// simCards refuses a simulated target whose GPU or model has no card:
// every trial would fail on it.
func simCards(cards *sim.Cards) func(space.Target) []space.Problem {
	return func(t space.Target) []space.Problem {
		if t.Runner != "sim" {
			return nil
		}
		var out []space.Problem
		if _, err := cards.GPU(t.GPU); err != nil {
			out = append(out, space.Problem{Key: "target.gpu", Msg: err.Error()})
		}
		if _, err := cards.Model(t.Model); err != nil {
			out = append(out, space.Problem{Key: "target.model", Msg: err.Error()})
		}
		return out
	}
}
