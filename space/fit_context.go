package space

import (
	"fmt"

	"github.com/servetune/servetune/bench"
)

// contextFits refuses a max_model_len above the model's own context (a
// simulated target's card: max_context): the engine refuses it at start,
// so every trial that sets it would fail. A space, baseline or enqueued
// config holding one is refused at load, naming where.
func (d *decoder) contextFits(s *Space) {
	if d.opt.ContextLimit == nil {
		return
	}
	limit := d.opt.ContextLimit(s.Target)
	if limit <= 0 {
		return
	}
	over := func(v any) bool {
		f, ok := Number(v, false)
		return ok && f > float64(limit)
	}
	why := func(v any) string {
		return fmt.Sprintf("%s is above the context of %s, %d tokens (its card's max_context): the engine refuses it and every trial with it would fail",
			FormatValue(v), s.Target.Model, limit)
	}
	d.maxModelLens(s, over, "high", why)
	for _, p := range s.Profiles {
		// The shortest request of a random profile: when even it is over
		// the model's context, every request fails, and so every trial.
		if p.DatasetName() != bench.DatasetRandom {
			continue
		}
		shortest := int(float64(p.InputLen)*(1-p.RangeRatio)) + p.PrefixLen + p.OutputLen
		if shortest > limit {
			key := "profiles.custom." + p.Name + ".input_len"
			if _, custom := d.lines["profiles.custom."+p.Name]; !custom {
				key = "profiles.run" // a built-in profile
			}
			d.fail(key, "profile %s: its shortest request, %d tokens (input_len × (1 − range_ratio) + prefix_len + output_len), is above the context of %s, %d tokens (its card's max_context): every request would fail",
				p.Name, shortest, s.Target.Model, limit)
		}
	}
}

// requestsFit refuses a max_model_len below a random profile's shortest
// request (input_len × (1 − range_ratio) + prefix_len + output_len): the
// engine refuses every request longer than it, so every trial with that
// value failed "no request succeeded" (exit 3 when all did). -1 (vLLM:
// what fits) and "default" are left to the engine.
func (d *decoder) requestsFit(s *Space) {
	shortest, name := 0, ""
	for _, p := range s.Profiles {
		if p.DatasetName() != bench.DatasetRandom {
			continue
		}
		if n := int(float64(p.InputLen)*(1-p.RangeRatio)) + p.PrefixLen + p.OutputLen; n > shortest {
			shortest, name = n, p.Name
		}
	}
	if shortest == 0 {
		return
	}
	under := func(v any) bool {
		f, ok := Number(v, false)
		return ok && f > 0 && f < float64(shortest)
	}
	why := func(v any) string {
		return fmt.Sprintf("%s is shorter than profile %s's shortest request, %d tokens (input_len × (1 − range_ratio) + prefix_len + output_len): the engine would refuse every request", FormatValue(v), name, shortest)
	}
	d.maxModelLens(s, under, "low", why)
}

// maxModelLens fails each place the space sets max_model_len to a value
// bad refuses, saying why: the knob's first such value (of a range, its
// end, "low" or "high", the one bad can reach), the baseline and every
// enqueued config.
func (d *decoder) maxModelLens(s *Space, bad func(any) bool, end string, why func(any) string) {
	if p, ok := s.Param("max_model_len"); ok {
		if p.Kind == Categorical {
			for _, v := range p.Values {
				if bad(v) {
					d.fail("params.max_model_len.values", "%s", why(v))
					break
				}
			}
		} else if v := rangeEnd(p, end); bad(v) {
			d.fail("params.max_model_len."+end, "%s", why(v))
		}
	}
	if v, ok := s.Baseline["max_model_len"]; ok && bad(v) {
		d.fail("baseline.max_model_len", "%s", why(v))
	}
	for i, c := range s.Enqueue {
		if v, ok := c["max_model_len"]; ok && bad(v) {
			d.fail(fmt.Sprintf("enqueue[%d].max_model_len", i), "%s", why(v))
		}
	}
}

// rangeEnd is a numeric parameter's low or high end.
func rangeEnd(p Param, end string) float64 {
	if end == "low" {
		return p.Low
	}
	return p.High
}
