package goptuna

import (
	"context"
	"fmt"
	"testing"

	"github.com/c-bata/goptuna"
	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

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
			sp := searchtest.TestSpace(tc.sampler)
			sp.Objectives[0].Direction = tc.dir
			s, err := newSampler(context.Background(), tc.sampler, sp, 1, nil, zerolog.Nop(), search.Options{NoFeasibility: true})
			if err != nil {
				t.Fatal(err)
			}
			m := s.(*search.Guard).Model.(lyingStudy)
			pending := []space.Config{{"mode": "a", "n": int64(2)}, {"mode": "b", "n": int64(1), "x": 0.5}}
			if undo := m.Lie(pending); len(completed(t, m)) != 0 {
				t.Errorf("lied during the random start-up")
			} else {
				undo()
			}
			tellGridExcept(t, s, sp, pending)
			undo := m.Lie(pending)
			lies := completed(t, m)[search.StartupTrials:]
			if len(lies) != len(pending) {
				t.Fatalf("%d lies for %d pending configs", len(lies), len(pending))
			}
			for i, l := range lies {
				if l.Value != tc.worst || fmt.Sprint(l.Params) != fmt.Sprint(map[string]any(pending[i])) || len(l.SystemAttrs) != 0 {
					t.Errorf("lie %d = %v %v %v, want %v at the worst value %v, untagged", i, l.Params, l.Value, l.SystemAttrs, pending[i], tc.worst)
				}
			}
			undo()
			if n := len(completed(t, m)); n != search.StartupTrials {
				t.Errorf("%d completed trials after the Ask, want the %d told", n, search.StartupTrials)
			}
			if err := s.Tell(context.Background(), search.Observation{Config: pending[0], State: search.Complete, Value: 42}); err != nil {
				t.Fatal(err)
			}
			if got := completed(t, m); len(got) != search.StartupTrials+1 || got[search.StartupTrials].Value != 42 {
				t.Errorf("after the real result: %d trials, last %v; want %d, the last at 42", len(got), got[len(got)-1].Value, search.StartupTrials+1)
			}
		})
	}
}

// tellGridExcept measures every grid point but the pending ones, at 10,
// 11, ...: the testSpace grid's other 10 points end the start-up.
func tellGridExcept(t *testing.T, s search.Sampler, sp *space.Space, pending []space.Config) {
	t.Helper()
	busy, i := search.KeySet(sp, pending), 0
	for _, c := range search.Grid(sp) {
		if busy[search.ConfigKey(sp, c)] {
			continue
		}
		if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: float64(10 + i)}); err != nil {
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
