package search

import "testing"

// The half-way turn with the leader measured twice already: the rival
// measured once that overlaps it, not nothing and not the leader again.
func TestNextConfirmHalfWayRival(t *testing.T) {
	m := func(key string, mean float64, n int) Measured { return Measured{Key: key, Mean: mean, N: n} }
	running := m("r", 16100, 1)
	running.Running = true
	half := func(ranked ...Measured) ConfirmState {
		// 40 trials, budget 4 (two early), the baseline repeated, trial 21.
		return ConfirmState{Budget: 4, NTrials: 40, Used: 1, Done: 20, Remaining: 20,
			Baseline: &Measured{Key: "base", Mean: 9000, N: 2}, Ranked: ranked, CV: 0.05}
	}
	for _, c := range []struct {
		name string
		s    ConfirmState
		want Confirm
		ok   bool
	}{
		{"a leader measured once: the leader, as before",
			half(m("lucky", 17390, 1), m("twin", 16178, 1)), Confirm{"lucky", "confirm"}, true},
		{"h200-extreme seed 24: a leader measured twice, its twin once, within noise: the twin",
			func() ConfirmState {
				// The report names the more measured (confirm_pool.go).
				s := half(m("twin", 16178, 1), m("lucky", 16097, 2))
				s.Leader = "lucky"
				return s
			}(), Confirm{"twin", "confirm"}, true},
		{"the rival behind, still overlapping: the rival",
			half(m("lucky", 17390, 2), m("twin", 16178, 1)), Confirm{"twin", "confirm"}, true},
		{"the strongest of the rivals measured once",
			half(m("lucky", 17390, 2), m("b", 16500, 1), m("c", 17000, 1), m("d", 17300, 2)), Confirm{"c", "confirm"}, true},
		{"a rival measured twice is no doubt of one draw: nothing",
			half(m("lucky", 17390, 2), m("d", 17300, 2)), Confirm{}, false},
		{"a separated rival: nothing",
			half(m("lucky", 17390, 2), m("far", 9000, 1)), Confirm{}, false},
		{"a rival being measured: nothing",
			half(m("lucky", 16097, 2), running), Confirm{}, false},
		{"several objectives: a front leader's rivals on the first are not its rivals", func() ConfirmState {
			s := half(m("lucky", 17390, 2), m("twin", 16178, 1))
			s.Several = true
			return s
		}(), Confirm{}, false},
		{"not before half-way", func() ConfirmState {
			s := half(m("lucky", 16097, 2), m("twin", 16178, 1))
			s.Done = 19
			return s
		}(), Confirm{}, false},
		{"the early share spent", func() ConfirmState {
			s := half(m("lucky", 16097, 2), m("twin", 16178, 1))
			s.Used = 2
			return s
		}(), Confirm{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := NextConfirm(c.s)
			if got != c.want || ok != c.ok {
				t.Errorf("NextConfirm = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
