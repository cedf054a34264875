package search

import "testing"

func TestNextConfirmSpared(t *testing.T) {
	spared := Measured{Key: "s", Mean: 200, N: 1, Spared: true}
	rest := []Measured{{Key: "a", Mean: 190, N: 1}, {Key: "b", Mean: 150, N: 1}}
	st := func(f func(*ConfirmState)) ConfirmState {
		// Trial 8 of 40: before the noise repeat's quarter-way mark.
		s := ConfirmState{Budget: 4, NTrials: 40, Done: 8, Remaining: 32, Baseline: &Measured{Key: "base", Mean: 100, N: 1},
			Ranked: append([]Measured{spared}, rest...), CV: 0.05}
		f(&s)
		return s
	}
	for _, c := range []struct {
		name string
		s    ConfirmState
		want Confirm
		ok   bool
	}{
		{"a spared leader measured once: again at once", st(func(*ConfirmState) {}), Confirm{"s", "confirm"}, true},
		{"the leader the report names is the one that counts", st(func(s *ConfirmState) { s.Leader = "a" }), Confirm{}, false},
		{"a spared config that does not lead waits", st(func(s *ConfirmState) {
			s.Ranked = append(rest, Measured{Key: "s", Mean: 100, N: 1, Spared: true})
		}), Confirm{}, false},
		{"measured twice already", st(func(s *ConfirmState) { s.Ranked[0].N = 2 }), Confirm{}, false},
		{"running already", st(func(s *ConfirmState) { s.Ranked[0].Running = true }), Confirm{}, false},
		{"its allowance spent", st(func(s *ConfirmState) { s.Used, s.SparedUsed = 2, 2 }), Confirm{}, false},
		{"no confirmation budget", st(func(s *ConfirmState) { s.Budget = 0 }), Confirm{}, false},
		// Its re-measurements are not the noise repeat's: a quarter in,
		// with two spared leaders re-measured, the baseline still gets
		// its repeat from the early share.
		{"the early share is kept", st(func(s *ConfirmState) {
			s.Done, s.Remaining, s.Used, s.SparedUsed = 10, 30, 2, 2
		}), Confirm{"base", "noise"}, true},
		{"and so is the end's", st(func(s *ConfirmState) {
			s.Done, s.Remaining, s.Used, s.SparedUsed = 38, 2, 4, 2
			s.Baseline.N = 2
			s.Ranked[0].N, s.Ranked[1].N = 2, 2
		}), Confirm{"s", "confirm"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := NextConfirm(c.s)
			if got != c.want || ok != c.ok {
				t.Errorf("NextConfirm = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}
