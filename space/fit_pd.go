package space

import "fmt"

// pdFits refuses a disaggregated layout that keeps every rule but needs
// more GPUs than a trial can have (its prefill and decode servers
// together): the simulator and the launcher would fail every such trial,
// and the sampler would keep proposing it.
func (d *decoder) pdFits(s *Space, c Config, f *fitProbe) {
	if f.pd || d.opt.EngineGPUs == nil || FormatValue(c["disaggregation"]) != "pd" {
		return
	}
	if _, ok := s.Target.TrialGPUs(c); ok {
		return // gpus_per_trial decides, checked by gpusFit
	}
	most, what := d.capacity(s.Target)
	if need := d.opt.EngineGPUs(c, s.Target); most > 0 && need > most {
		f.pd = true
		d.fail(pdCountKey(s), "the disaggregated layout %s needs %d GPUs (its prefill and decode servers together), more than %s: keep the instance counts and each side's tp × dp within it, or add a rule such as 'prefill_instances * prefill_tp + decode_instances * decode_tp <= gpus'",
			c.Summary(), need, what)
	}
}

// pdCountKey names the knob that sizes a layout: the first of the
// instance counts and per-side parallelism the space declares.
func pdCountKey(s *Space) string {
	for _, k := range []string{"prefill_instances", "decode_instances", "prefill_tp", "decode_tp", "prefill_dp", "decode_dp"} {
		if _, ok := s.Param(k); ok {
			return "params." + k
		}
	}
	return "params.disaggregation"
}

// aggregatedFits counts the aggregated configs that keep every rule and
// those of them that need more GPUs (tp × dp, as the engine counts them)
// than a trial can have; aggregatedReport refuses a space where every
// one does: on the simulator each such trial failed, so `tp = [2, 4]` on
// `gpus = 1` ran a whole study to exit 3. A space where only some do is
// left to the search (the failures teach the sampler), as before.
func (d *decoder) aggregatedFits(s *Space, c Config, f *fitProbe) {
	if d.opt.EngineGPUs == nil || FormatValue(c["disaggregation"]) == "pd" {
		return
	}
	if _, ok := s.Target.TrialGPUs(c); ok {
		return // gpus_per_trial decides, checked by gpusFit
	}
	most, what := d.capacity(s.Target)
	if most <= 0 {
		return
	}
	f.aggregated++
	if need := d.opt.EngineGPUs(c, s.Target); need > most {
		f.aggOver++
		if f.aggExample == "" {
			f.aggExample = fmt.Sprintf("%s needs %d GPUs, more than %s", c.Summary(), need, what)
		}
	}
}

func (d *decoder) aggregatedReport(s *Space, f *fitProbe) {
	if f.aggregated > 0 && f.aggOver == f.aggregated {
		d.fail(aggCountKey(s), "every config of the space needs more GPUs than a trial can have (e.g. %s): keep tp × dp within it, or raise target.gpus", f.aggExample)
	}
}

// aggCountKey names the knob that sizes an aggregated config.
func aggCountKey(s *Space) string {
	for _, k := range []string{"tp", "dp", "pp"} {
		if _, ok := s.Param(k); ok {
			return "params." + k
		}
	}
	return "target.gpus"
}
