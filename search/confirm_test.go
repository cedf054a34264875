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
		{"early share spent", st(func(s *ConfirmState) {
			s.Baseline = &Measured{Key: "base", N: 2}
			s.Used, s.Done, s.Remaining = 3, 40, 20
		}), Confirm{}, false},
		{"the end: the best first", st(func(s *ConfirmState) { s.Used, s.Done, s.Remaining = 3, 57, 3 }), Confirm{"a", "confirm"}, true},
		{"the end: fewest measurements first", st(func(s *ConfirmState) {
			s.Used, s.Done, s.Remaining = 4, 58, 2
			s.Ranked = []Measured{{Key: "a", Mean: 200, N: 2}, {Key: "b", Mean: 190, N: 1}}
		}), Confirm{"b", "confirm"}, true},
		{"the end: a third within noise is a contender", st(func(s *ConfirmState) {
			s.Used, s.Done, s.Remaining = 4, 58, 2
			s.Ranked = []Measured{{Key: "a", Mean: 200, N: 2}, {Key: "b", Mean: 195, N: 2}, {Key: "c", Mean: 190, N: 1}}
		}), Confirm{"c", "confirm"}, true},
		{"the end: a third outside noise is not", st(func(s *ConfirmState) {
			s.Used, s.Done, s.Remaining = 4, 58, 2
			s.Ranked = []Measured{{Key: "a", Mean: 200, N: 2}, {Key: "b", Mean: 195, N: 2}, {Key: "c", Mean: 150, N: 1}}
		}), Confirm{"a", "confirm"}, true},
		{"the end: every contender measured enough", st(func(s *ConfirmState) {
			s.Used, s.Done, s.Remaining = 4, 58, 2
			s.Ranked = []Measured{{Key: "a", Mean: 200, N: MaxMeasurements}, {Key: "b", Mean: 150, N: MaxMeasurements}}
		}), Confirm{}, false},
		{"the end: budget spent", st(func(s *ConfirmState) { s.Used, s.Done, s.Remaining = 6, 59, 1 }), Confirm{}, false},
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
