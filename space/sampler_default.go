package space

// DefaultSampler is the sampler a study gets when its file names none.
// With the simulator prior (prior unset or "sim") that is motpe, the
// sampler the prior was tuned around. With prior = "none" it is the
// best prior-free sampler measured (docs/search.md, "The prior-free
// default"): headroom's median gap at 30 trials is 3–12% on the four
// GLM-5.2 realities of that measurement, where motpe's is 22–37%.
func DefaultSampler(prior string) string {
	if prior == PriorNone {
		return "headroom"
	}
	return "motpe"
}
