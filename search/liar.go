package search

import "github.com/servetune/servetune/space"

// liar is a model that can take the trials still running into account
// while it proposes (constant liar): each pending config is told as a
// provisional observation for the duration of one Ask, then forgotten.
type liar interface {
	// lie adds the provisional observations and returns their undo.
	lie(pending []space.Config) (undo func())
}

// lie tells MOTPE each pending config as a known-bad observation — the
// pessimistic constant liar: it joins g(x), never l(x), so proposals move
// away from the region peers are measuring instead of piling onto it,
// without pretending to know how good it is. The configs one step away on
// an ordered numeric knob are lied too: a neighbour by mem_fraction ±0.05
// measures nearly what the pending trial will, whereas another value of a
// categorical is another region. (Lying every one-knob neighbour,
// categoricals included, buried the measured trials under lies and
// halved how often 4 workers reached the sequential best@30;
// docs/benchmarks.md.) During the random start-up it tells nothing, so
// the start-up stays as long as it would sequentially.
func (m *MOSampler) lie(pending []space.Config) func() {
	n := len(m.obs)
	if len(pending) == 0 || n < m.Startup {
		return func() {}
	}
	for _, c := range pending {
		for _, l := range append([]space.Config{c}, numericSteps(m.sp, c)...) {
			m.obs = append(m.obs, Observation{Config: l, State: Pruned, Class: "pending"})
		}
	}
	return func() { m.obs = m.obs[:n:n] }
}
