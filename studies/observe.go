package studies

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// The sampler learns from the record: these map a trial's outcome onto
// what the sampler distinguishes (search.State), the one place where the
// two vocabularies meet.

func observation(sp *space.Space, t store.Trial, base *store.Trial) search.Observation {
	o := search.Observation{Config: t.Config, Value: math.NaN()}
	switch {
	case t.Failure != nil:
		o.Class, o.Message = string(t.Failure.Class), t.Failure.Message
	case t.BrokeRule():
		o.Class = "rule"
	}
	switch t.State {
	case store.Complete:
		o.State, o.Values, o.Violation = search.Complete, Values(sp, t), Violation(sp, t, base)
		o.Value = o.Values[0]
	case store.Infeasible:
		o.State = search.Infeasible
	case store.Pruned:
		// The sampler learns the projected final values, when the pruner
		// made one, rather than a penalty.
		o.State = search.Pruned
		if n := len(t.Intermediate); n > 0 && len(t.Intermediate[n-1].Projected) == len(sp.Objectives) {
			o.Values = t.Intermediate[n-1].Projected
			o.Value = o.Values[0]
		}
	default:
		o.State = search.Failed
	}
	return o
}

func observations(sp *space.Space, ts []store.Trial) []search.Observation {
	var out []search.Observation
	seen := map[string]store.State{}
	base := Baseline(ts)
	for _, t := range ts {
		if t.State == store.Running || t.State == store.Interrupted {
			continue
		}
		// A config is learnt once, unless it was pruned and measured
		// again (a revisit): the sampler heard both as they happened.
		if prev, ok := seen[t.Config.Key()]; ok && (prev != store.Pruned || t.State == store.Pruned) {
			continue
		}
		seen[t.Config.Key()] = t.State
		out = append(out, observation(sp, t, base))
	}
	return out
}
