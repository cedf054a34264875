package studies

import (
	"fmt"
	"strings"
	"sync"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store/pgurl"
)

// SpaceOptions is what the space validator needs from the packages below
// it, one builder for `run` and the lab alike: the engines' knobs and
// names, bench's profiles and metrics, the samplers' check, and the
// simulator's cards (nil: the built-in catalogue) for a simulated target.
// engineFiles are the --engines declarations.
func SpaceOptions(cards CardsOf, engineFiles ...string) space.Options {
	if cards == nil {
		cards = func(space.Target) (*sim.Cards, error) { return sim.DefaultCards(), nil }
	}
	cards = onceEach(cards)
	return space.Options{
		EngineFiles:  engineFiles,
		Supports:     engines.Supports,
		Knobs:        engineKnobs,
		Engines:      engines.Names(),
		Profile:      bench.Lookup,
		Metric:       bench.KnownMetric,
		Storage:      pgurl.SecretKeysOf,
		Sampler:      samplers.Check,
		CheckTarget:  simCards(cards),
		EngineGPUs:   engines.GPUs,
		RefusedValue: refusedValue(cards),
		Gated:        engines.PDGate,
		Prior:        priorFits(cards),
		ContextLimit: contextLimit(cards),
	}
}

// refusedValue is the engines' verdict on a knob value and, on a
// simulated target, the simulator's (sim.Cards.RefusedValue).
func refusedValue(cardsOf CardsOf) func(space.Target, string, string, any) error {
	return func(t space.Target, engine, knob string, v any) error {
		if err := engines.RefusedValue(t, engine, knob, v); err != nil || t.Runner != "sim" {
			return err
		}
		cards, err := cardsOf(t)
		if err != nil {
			return nil // reported by CheckTarget
		}
		return cards.RefusedValue(knob, v)
	}
}

// contextLimit is a simulated target's model context (its card's
// max_context); 0 where unknown or the target is not simulated.
func contextLimit(cardsOf CardsOf) func(space.Target) int {
	return func(t space.Target) int {
		if t.Runner != "sim" {
			return 0
		}
		cards, err := cardsOf(t)
		if err != nil {
			return 0 // reported by CheckTarget
		}
		m, err := cards.Model(t.Model)
		if err != nil {
			return 0
		}
		return m.MaxContext
	}
}

// engineKnobs are the knobs a built-in engine renders, for did-you-mean.
func engineKnobs(name string) []string {
	if e, ok := engines.Lookup(name, space.Target{}); ok {
		return e.Knobs()
	}
	return nil
}

// onceEach is cardsOf loading each target's cards once: the space's
// check asks for them at every knob value it judges (refusedValue), and
// the built-in catalogue alone is a TOML parse — 0.8 s of CPU each load
// of a small space, half a 200-trial simulated study's. The cards depend
// on the target's cards file and stored text only.
func onceEach(cardsOf CardsOf) CardsOf {
	type source struct{ file, text string }
	type loaded struct {
		cards *sim.Cards
		err   error
	}
	var mu sync.Mutex
	seen := map[source]loaded{}
	return func(t space.Target) (*sim.Cards, error) {
		mu.Lock()
		defer mu.Unlock()
		k := source{t.Sim.Cards, t.Sim.CardsSource}
		if l, ok := seen[k]; ok {
			return l.cards, l.err
		}
		c, err := cardsOf(t)
		seen[k] = loaded{c, err}
		return c, err
	}
}

// CardsOf gives the simulator cards a target simulates on: the built-in
// catalogue, or that with [target.sim] cards (or --cards) over it; an
// error is a cards file that does not load.
type CardsOf func(space.Target) (*sim.Cards, error)

// simCards refuses a simulated target whose GPU or model has no card
// (every trial would fail on it) and a cards file that does not load.
func simCards(cardsOf CardsOf) func(space.Target) []space.Problem {
	return func(t space.Target) []space.Problem {
		cards, err := cardsOf(t)
		if err != nil {
			return []space.Problem{{Key: "target.sim.cards", Msg: err.Error()}}
		}
		if t.Runner != "sim" {
			return nil
		}
		var out []space.Problem
		if _, err := cards.GPU(t.GPU); err != nil {
			out = append(out, space.Problem{Key: "target.gpu", Msg: err.Error()})
		}
		if _, err := cards.Model(t.Model); err != nil {
			out = append(out, space.Problem{Key: "target.model", Msg: err.Error() + "; `servetune card` builds one from config.json for [target.sim] cards or --cards"})
		}
		return out
	}
}

// priorFits refuses an explicit prior = "sim" that could not work: a
// sampler it cannot guide, or a target the simulator has no cards for
// (it would only guess).
func priorFits(cardsOf CardsOf) func(string, space.Target) error {
	return func(sampler string, t space.Target) error {
		if !samplers.PriorGuides(sampler) {
			return fmt.Errorf("the simulator prior cannot guide the %s sampler, which keeps its own order: remove prior = \"sim\" or use %s", sampler, strings.Join(guidedSamplers(), ", "))
		}
		cards, err := cardsOf(t)
		if err != nil {
			return err
		}
		if _, err := cards.Model(t.Model); err != nil {
			return fmt.Errorf("%v, so the prior has nothing to simulate: remove prior = \"sim\"", err)
		}
		if _, err := cards.GPU(t.GPU); err != nil {
			return fmt.Errorf("%v, so the prior has nothing to simulate: remove prior = \"sim\"", err)
		}
		return nil
	}
}

func guidedSamplers() []string {
	var out []string
	for _, n := range samplers.Names() {
		if samplers.PriorGuides(n) {
			out = append(out, n)
		}
	}
	return out
}
