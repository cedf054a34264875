package sim

import (
	"cmp"
	"math"

	"github.com/servetune/servetune/bench"
)

// Screening shortens a benchmark: one wave of requests at the profile's
// concurrency, but never fewer than screenPrompts (a mean over a handful
// of requests would rank by chance), and half of each random-dataset
// reply (at least screenMinOutput tokens). A quarter ranked engines
// apart once vLLM's step model was refitted to real runs (its prefill
// share then weighs differently from SGLang's): Kendall τ 0.58 against
// the full benchmark on GLM-5.2, 0.7 or more with half
// (studies/lab TestScreeningKeepsTheRanking).
const (
	screenPrompts   = 128
	screenOutputDiv = 2
	screenMinOutput = 64
)

// ScreeningProfile is p shortened for screening configs by simulation.
// The concurrency stays, so a config's batch and KV-cache limits still
// bind as in p; fewer requests and shorter replies mean fewer scheduler
// steps. For GLM-5.2's balanced profile this is ~2× cheaper and ranks
// the landscape's optimum first among its top configs (docs/sim.md):
// good enough to choose which configs to simulate in full, not to
// replace the full simulation.
func ScreeningProfile(p bench.Profile) bench.Profile {
	if len(p.Stages) > 0 {
		return p // the stages are the benchmark's shape
	}
	// A trace's num_prompts 0 caps nothing: screening replays its first
	// requests only.
	p.NumPrompts = min(cmp.Or(p.NumPrompts, math.MaxInt), max(p.MaxConcurrency, screenPrompts))
	if p.DatasetName() == bench.DatasetRandom && p.OutputLen > screenMinOutput {
		p.OutputLen = max(p.OutputLen/screenOutputDiv, screenMinOutput)
	}
	return p
}

// ScreeningProfiles applies ScreeningProfile to each profile.
func ScreeningProfiles(ps []bench.Profile) []bench.Profile {
	out := make([]bench.Profile, len(ps))
	for i, p := range ps {
		out[i] = ScreeningProfile(p)
	}
	return out
}
