package search

import (
	"math"
	"testing"
)

func TestConfirmBudget(t *testing.T) {
	for _, c := range []struct {
		share float64
		n     int
		want  int
	}{
		{0, 60, 0}, {DefaultConfirmShare, 9, 0}, {DefaultConfirmShare, 10, 2},
		{DefaultConfirmShare, 20, 2}, {DefaultConfirmShare, 60, 6}, {0.5, 20, 10}, {0.9, 20, 10},
	} {
		if got := ConfirmBudget(c.share, c.n); got != c.want {
			t.Errorf("ConfirmBudget(%v, %d) = %d, want %d", c.share, c.n, got, c.want)
		}
	}
}

func TestNextConfirm(t *testing.T) {
	base := &Measured{Key: "base", Mean: 100, N: 1}
	top := []Measured{{Key: "a", Mean: 200, N: 1}, {Key: "b", Mean: 190, N: 1}, {Key: "c", Mean: 150, N: 1}}
	st := func(f func(*ConfirmState)) ConfirmState {
		s := ConfirmState{Budget: 6, NTrials: 60, Done: 20, Remaining: 40, Baseline: base, Ranked: top, CV: 0.05}
		f(&s)
		return s
	}
	end := func(used int, ranked ...Measured) func(*ConfirmState) {
		return func(s *ConfirmState) { s.Used, s.Done, s.Remaining, s.Ranked = used, 57, 3, ranked }
	}
	m := func(key string, mean float64, n int) Measured { return Measured{Key: key, Mean: mean, N: n} }
	for _, c := range []struct {
		name string
		s    ConfirmState
		want Confirm
		ok   bool
	}{
		{"no budget", st(func(s *ConfirmState) { s.Budget = 0 }), Confirm{}, false},
		{"too early for the baseline", st(func(s *ConfirmState) { s.Done = 14 }), Confirm{}, false},
		{"a quarter in: the baseline again", st(func(*ConfirmState) {}), Confirm{"base", "noise"}, true},
		{"the baseline running already", st(func(s *ConfirmState) { s.Baseline = &Measured{Key: "base", N: 1, Running: true} }), Confirm{}, false},
		{"baseline repeated, not half-way", st(func(s *ConfirmState) { s.Baseline = &Measured{Key: "base", N: 2}; s.Used = 1 }), Confirm{}, false},
		{"half-way: the incumbent", st(func(s *ConfirmState) {
			s.Baseline = &Measured{Key: "base", N: 2}
			s.Used, s.Done, s.Remaining = 1, 30, 30
		}), Confirm{"a", "confirm"}, true},
		{"half-way: the incumbent the report names", st(func(s *ConfirmState) {
			s.Baseline = &Measured{Key: "base", N: 2}
			s.Used, s.Done, s.Remaining, s.Leader = 1, 30, 30, "b"
		}), Confirm{"b", "confirm"}, true},
		{"early share spent", st(func(s *ConfirmState) {
			s.Baseline = &Measured{Key: "base", N: 2}
			s.Used, s.Done, s.Remaining = 3, 40, 20
		}), Confirm{}, false},
		{"the end: a leader measured once first", st(end(3, m("a", 200, 1), m("b", 199, 1))), Confirm{"a", "confirm"}, true},
		{"the end: the leader the report names, not the best on the first objective", st(func(s *ConfirmState) {
			end(3, m("a", 200, 1), m("b", 199, 1))(s)
			s.Leader = "b"
		}), Confirm{"b", "confirm"}, true},
		{"the end: a rival measured once, before the leader again", st(end(3, m("a", 200, 2), m("b", 190, 1))), Confirm{"b", "confirm"}, true},
		{"the end: the rival with the highest bound, beyond the first three", st(end(3, m("a", 200, 2), m("b", 199, 3), m("c", 198, 3), m("d", 197, 1))), Confirm{"d", "confirm"}, true},
		{"the end: leader and rival measured alike: the leader", st(end(3, m("a", 200, 2), m("b", 199, 2))), Confirm{"a", "confirm"}, true},
		{"the end: the leader at its limit: the rival", st(end(3, m("a", 200, MaxMeasurements), m("b", 199, 2))), Confirm{"b", "confirm"}, true},
		{"the end: a rival at its limit still threatens: the leader", st(end(3, m("a", 200, 2), m("b", 199, MaxMeasurements))), Confirm{"a", "confirm"}, true},
		{"the end: a separated leader leaves the trial to the search", st(end(3, m("a", 200, 2), m("b", 100, 1))), Confirm{}, false},
		{"the end: every contender measured enough", st(end(3, m("a", 200, MaxMeasurements), m("b", 199, MaxMeasurements))), Confirm{}, false},
		{"the end: rivals still overlap when the budget is spent: it grows", st(func(s *ConfirmState) {
			end(6, m("a", 200, 2), m("b", 198, 1))(s)
			s.Remaining = 2 // the rival and one more
		}), Confirm{"b", "confirm"}, true},
		{"the end: growth is bounded", st(end(ConfirmLimit(6), m("a", 200, 2), m("b", 198, 1))), Confirm{}, false},
		{"the end comes earlier when rivals overlap", st(func(s *ConfirmState) {
			end(3, m("a", 200, 1), m("b", 199, 1), m("c", 198, 1), m("d", 197, 1))(s)
			s.Remaining = 5 // the leader, three rivals and one more: 5 > 3 left of the budget
		}), Confirm{"a", "confirm"}, true},
		{"not earlier than the budget when the leader is separated", st(func(s *ConfirmState) {
			end(3, m("a", 200, 1), m("b", 100, 1))(s)
			s.Remaining = 4
		}), Confirm{}, false},
		{"minimising: a lower rival is the threat", st(func(s *ConfirmState) {
			end(3, m("a", 1.0, 2), m("b", 1.02, 1), m("c", 2, 1))(s)
			s.Minimize = true
		}), Confirm{"b", "confirm"}, true},
		{"quiet measured noise pooled with the assumed: still a threat", st(func(s *ConfirmState) {
			end(3, m("a", 200, 2), m("b", 190, 1))(s)
			s.CV, s.CVDF, s.AssumedCV = 0.001, 2, 0.05
		}), Confirm{"b", "confirm"}, true},
		{"quiet measured noise alone: separated", st(func(s *ConfirmState) {
			end(3, m("a", 200, 2), m("b", 190, 1))(s)
			s.CV, s.CVDF = 0.001, 2
		}), Confirm{}, false},
		{"the GPU budget brings the end forward", st(func(s *ConfirmState) { s.Used, s.Done, s.Remaining = 1, 20, 5 }), Confirm{"a", "confirm"}, true},
		{"the end with nothing measured", st(func(s *ConfirmState) { s.Remaining, s.Ranked = 2, nil }), Confirm{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := NextConfirm(c.s)
			if got != c.want || ok != c.ok {
				t.Errorf("NextConfirm = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestDetectDrift(t *testing.T) {
	l := math.Log
	for _, c := range []struct {
		name     string
		ratios   []float64
		pairs    int
		detected bool
	}{
		{"nothing repeated", nil, 0, false},
		{"one pair cannot tell drift from noise", []float64{l(0.5)}, 1, false},
		{"consistent halving", []float64{l(0.5), l(0.52), l(0.48)}, 3, true},
		{"both ways: noise", []float64{l(0.9), l(1.1), l(0.95)}, 3, false},
		{"tiny and consistent: not drift", []float64{l(0.99), l(0.995), l(0.99)}, 3, false},
		{"same way but scattered", []float64{l(0.97), l(0.5), l(0.99)}, 3, false},
		{"undefined ratios are dropped", []float64{l(1.2), math.NaN(), l(1.21), math.Inf(1)}, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := DetectDrift(c.ratios)
			if d.Pairs != c.pairs || d.Detected != c.detected {
				t.Errorf("DetectDrift(%v) = %+v, want %d pairs, detected %v", c.ratios, d, c.pairs, c.detected)
			}
		})
	}
	if d := DetectDrift([]float64{l(0.5), l(0.5)}); math.Abs(d.MeanPct+50) > 1e-9 {
		t.Errorf("mean change of two halvings = %v%%, want -50%%", d.MeanPct)
	}
}
