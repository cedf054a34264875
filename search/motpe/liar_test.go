package motpe

import (
	"math/rand"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// While peers run configs, MOTPE counts them as known-bad (g(x)) for one
// Ask only: they never enter the good set, and are forgotten afterwards.
func TestMOTPETellsPendingConfigsAsProvisionalLies(t *testing.T) {
	sp, f := searchtest.MOLandscape()
	m := NewMOSampler(sp, 1)
	rng := rand.New(rand.NewSource(2))
	early := []space.Config{sp.Sample(rng)}
	if undo := m.Lie(early); len(m.obs) != 0 {
		t.Errorf("lied during the random start-up: %d observations", len(m.obs))
	} else {
		undo()
	}
	for range m.Startup + 5 {
		c := sp.Sample(rng)
		m.Tell(search.Observation{Config: c, State: search.Complete, Values: f(c)})
	}
	told := len(m.obs)
	pending := []space.Config{sp.Sample(rng), sp.Sample(rng)}
	undo := m.Lie(pending)
	s := m.split()
	for _, c := range pending {
		in := func(obs []search.Observation) bool {
			for _, o := range obs {
				if o.Config.Key() == c.Key() && o.Class == "pending" {
					return true
				}
			}
			return false
		}
		if !in(s.above) || in(s.below) {
			t.Errorf("pending %v: in g %v, in l %v; want g only", c, in(s.above), in(s.below))
		}
	}
	undo()
	if len(m.obs) != told {
		t.Errorf("%d observations after the Ask, want the %d told", len(m.obs), told)
	}
}
