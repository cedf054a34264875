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
	if p, ok := s.Param("max_model_len"); ok {
		switch {
		case p.Kind == Categorical:
			for _, v := range p.Values {
				if over(v) {
					d.fail("params.max_model_len.values", "%s", why(v))
					break
				}
			}
		case over(p.High):
			d.fail("params.max_model_len.high", "%s", why(p.High))
		}
	}
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
	if v, ok := s.Baseline["max_model_len"]; ok && over(v) {
		d.fail("baseline.max_model_len", "%s", why(v))
	}
	for i, c := range s.Enqueue {
		if v, ok := c["max_model_len"]; ok && over(v) {
			d.fail(fmt.Sprintf("enqueue[%d].max_model_len", i), "%s", why(v))
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
	if p, ok := s.Param("max_model_len"); ok {
		switch {
		case p.Kind == Categorical:
			for _, v := range p.Values {
				if under(v) {
					d.fail("params.max_model_len.values", "%s", why(v))
					break
				}
			}
		case under(p.Low):
			d.fail("params.max_model_len.low", "%s", why(p.Low))
		}
	}
	if v, ok := s.Baseline["max_model_len"]; ok && under(v) {
		d.fail("baseline.max_model_len", "%s", why(v))
	}
	for i, c := range s.Enqueue {
		if v, ok := c["max_model_len"]; ok && under(v) {
			d.fail(fmt.Sprintf("enqueue[%d].max_model_len", i), "%s", why(v))
		}
	}
}
