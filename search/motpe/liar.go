package motpe

import (
	"github.com/servetune/servetune/space"

	"github.com/servetune/servetune/search"
)

// Lie tells MOTPE each pending config as a known-bad observation — the
// pessimistic constant liar: it joins g(x), never l(x), so proposals move
// away from the region peers are measuring instead of piling onto it,
// without pretending to know how good it is. The pending config alone is
// lied: also lying its one-step neighbours on numeric knobs looked better
// on 10 seeds and was worse on 20 (docs/benchmarks.md, "Parallel
// workers"); lying every one-knob neighbour, or lying at the best value,
// was far worse. During the random start-up it tells nothing, so the
// start-up stays as long as it would sequentially.
func (m *MOSampler) Lie(pending []space.Config) func() {
	n := len(m.obs)
	if len(pending) == 0 || n < m.Startup {
		return func() {}
	}
	for _, c := range pending {
		m.obs = append(m.obs, search.Observation{Config: c, State: search.Pruned, Class: "pending"})
	}
	return func() { m.obs = m.obs[:n:n] }
}
