package space

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

// aggregatedFits refuses an aggregated config that keeps every rule but
// needs more GPUs (tp × dp, as the engine counts them) than a trial can
// have: on the simulator every such trial failed, and a space of only
// such configs ran a whole study to exit 3 (`tp = [2, 4]` on `gpus = 1`).
func (d *decoder) aggregatedFits(s *Space, c Config, f *fitProbe) {
	if f.agg || d.opt.EngineGPUs == nil || FormatValue(c["disaggregation"]) == "pd" {
		return
	}
	if _, ok := s.Target.TrialGPUs(c); ok {
		return // gpus_per_trial decides, checked by gpusFit
	}
	most, what := d.capacity(s.Target)
	if need := d.opt.EngineGPUs(c, s.Target); most > 0 && need > most {
		f.agg = true
		d.fail(aggCountKey(s), "%s needs %d GPUs, more than %s: keep tp × dp within it, raise target.gpus, or add a rule such as 'tp * dp <= gpus'", c.Summary(), need, what)
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
