package sim

import "github.com/servetune/servetune/bench"

// screenPrompts is how many requests a screening benchmark keeps.
const screenPrompts = 128

// ScreeningProfile is p shortened for screening configs by simulation:
// at most screenPrompts requests at a concurrency of at most as many.
// The simulation's cost is roughly proportional to the requests, so this
// is several times cheaper than p for the long built-in profiles (7 ms
// against 50 ms for GLM-5.2's balanced profile) and ranks configs nearly
// as p does (docs/sim.md): good enough to choose which configs to
// simulate in full, not to replace the full simulation.
func ScreeningProfile(p bench.Profile) bench.Profile {
	if p.NumPrompts > screenPrompts {
		p.NumPrompts = screenPrompts
	}
	if p.MaxConcurrency > p.NumPrompts {
		p.MaxConcurrency = p.NumPrompts
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
