package search

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	"github.com/c-bata/goptuna"
	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

// While peers run configs, MOTPE counts them as known-bad (g(x)) for one
// Ask only: they never enter the good set, and are forgotten afterwards.
func TestMOTPETellsPendingConfigsAsProvisionalLies(t *testing.T) {
	sp, f := moLandscape()
	m := NewMOSampler(sp, 1)
	rng := rand.New(rand.NewSource(2))
	early := []space.Config{sp.Sample(rng)}
	if undo := m.lie(early); len(m.obs) != 0 {
		t.Errorf("lied during the random start-up: %d observations", len(m.obs))
	} else {
		undo()
	}
	for range m.Startup + 5 {
		c := sp.Sample(rng)
		m.Tell(Observation{Config: c, State: Complete, Values: f(c)})
	}
	told := len(m.obs)
	pending := []space.Config{sp.Sample(rng), sp.Sample(rng)}
	undo := m.lie(pending)
	s := m.split()
	for _, c := range pending {
		in := func(obs []Observation) bool {
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

// While peers run configs, goptuna's TPE sees each as a completed trial
// with the worst value measured so far, for one Ask only; the real result
// is told as its own trial when it arrives, never replaced by the lie.
// cmaes's lies carry no CMA-ES generation, so CMA-ES never takes them.
func TestGoptunaSamplersTellPendingConfigsAsProvisionalLies(t *testing.T) {
	for _, tc := range []struct {
		sampler string
		dir     space.Direction
		worst   float64
	}{{"tpe", space.Maximize, 10}, {"tpe", space.Minimize, 19}, {"cmaes", space.Maximize, 10}} {
		t.Run(fmt.Sprintf("%s/%s", tc.sampler, tc.dir), func(t *testing.T) {
			sp := testSpace(tc.sampler)
			sp.Objectives[0].Direction = tc.dir
			s, err := NewSampler(context.Background(), tc.sampler, sp, 1, nil, zerolog.Nop(), Options{NoFeasibility: true})
			if err != nil {
				t.Fatal(err)
			}
			m := s.(*guard).model.(lyingStudy)
			pending := []space.Config{{"mode": "a", "n": int64(2)}, {"mode": "b", "n": int64(1), "x": 0.5}}
			if undo := m.lie(pending); len(completed(t, m)) != 0 {
				t.Errorf("lied during the random start-up")
			} else {
				undo()
			}
			tellGridExcept(t, s, sp, pending)
			undo := m.lie(pending)
			lies := completed(t, m)[startupTrials:]
			if len(lies) != len(pending) {
				t.Fatalf("%d lies for %d pending configs", len(lies), len(pending))
			}
			for i, l := range lies {
				if l.Value != tc.worst || fmt.Sprint(l.Params) != fmt.Sprint(map[string]any(pending[i])) || len(l.SystemAttrs) != 0 {
					t.Errorf("lie %d = %v %v %v, want %v at the worst value %v, untagged", i, l.Params, l.Value, l.SystemAttrs, pending[i], tc.worst)
				}
			}
			undo()
			if n := len(completed(t, m)); n != startupTrials {
				t.Errorf("%d completed trials after the Ask, want the %d told", n, startupTrials)
			}
			if err := s.Tell(context.Background(), Observation{Config: pending[0], State: Complete, Value: 42}); err != nil {
				t.Fatal(err)
			}
			if got := completed(t, m); len(got) != startupTrials+1 || got[startupTrials].Value != 42 {
				t.Errorf("after the real result: %d trials, last %v; want %d, the last at 42", len(got), got[len(got)-1].Value, startupTrials+1)
			}
		})
	}
}

// tellGridExcept measures every grid point but the pending ones, at 10,
// 11, ...: the testSpace grid's other 10 points end the start-up.
func tellGridExcept(t *testing.T, s Sampler, sp *space.Space, pending []space.Config) {
	t.Helper()
	busy, i := KeySet(sp, pending), 0
	for _, c := range Grid(sp) {
		if busy[ConfigKey(sp, c)] {
			continue
		}
		if err := s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: float64(10 + i)}); err != nil {
			t.Fatal(err)
		}
		i++
	}
}

// completed is what goptuna's TPE learns from: the study's completed
// trials.
func completed(t *testing.T, m lyingStudy) []goptuna.FrozenTrial {
	t.Helper()
	all, err := m.study.GetTrials()
	if err != nil {
		t.Fatal(err)
	}
	var out []goptuna.FrozenTrial
	for _, tr := range all {
		if tr.State == goptuna.TrialStateComplete {
			out = append(out, tr)
		}
	}
	return out
}
