package search

import (
	"math"
	"testing"
)

func TestDisputed(t *testing.T) {
	for _, c := range []struct {
		name string
		vs   []float64
		cv   float64
		want bool
	}{
		// 3·√2·5% = 21.2% in log ratio.
		{"within the noise", []float64{100, 110}, 0.05, false},
		{"just inside", []float64{100, 100 * math.Exp(0.21)}, 0.05, false},
		{"just beyond", []float64{100, 100 * math.Exp(0.22)}, 0.05, true},
		{"either order", []float64{141, 100}, 0.05, true},
		{"the highest against the lowest", []float64{120, 141, 100}, 0.05, true},
		{"three that agree", []float64{120, 110, 100}, 0.05, false},
		{"noisier machine: the same pair is not disputed", []float64{141, 100}, 0.1, false},
		{"one measurement", []float64{141}, 0.05, false},
		{"no noise known", []float64{141, 100}, 0, false},
		{"an undefined measurement", []float64{math.NaN(), 100}, 0.05, false},
		{"a zero measurement", []float64{0, 100}, 0.05, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Disputed(c.vs, c.cv); got != c.want {
				t.Errorf("Disputed(%v, %v) = %v, want %v", c.vs, c.cv, got, c.want)
			}
		})
	}
}

func TestCentral(t *testing.T) {
	for _, c := range []struct {
		name     string
		vs       []float64
		disputed bool
		want     float64
	}{
		{"one", []float64{7}, true, 7},
		{"two: the mean", []float64{100, 140}, true, 120},
		{"three that agree: the mean", []float64{100, 104, 99}, false, 101},
		{"three disputed: the median, not moved by the outlier", []float64{100, 141, 98}, true, 100},
		{"four disputed: the mean of the middle two", []float64{100, 141, 98, 102}, true, 101},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Central(c.vs, c.disputed); got != c.want {
				t.Errorf("Central(%v, %v) = %v, want %v", c.vs, c.disputed, got, c.want)
			}
		})
	}
	for _, vs := range [][]float64{nil, {1, math.NaN(), 3}} {
		if got := Central(vs, true); !math.IsNaN(got) {
			t.Errorf("Central(%v) = %v, want NaN", vs, got)
		}
	}
}

func TestNextConfirmDisputed(t *testing.T) {
	disputed := Measured{Key: "a", Mean: 120, N: 2, Disputed: true}
	for _, c := range []struct {
		name string
		s    ConfirmState
		want Confirm
		ok   bool
	}{
		{"early, the early share spent: a disputed leader a third time",
			ConfirmState{Budget: 4, Used: 2, NTrials: 40, Done: 22, Remaining: 18, Ranked: []Measured{disputed, {Key: "b", Mean: 110, N: 1}}, CV: 0.05},
			Confirm{"a", "confirm"}, true},
		{"not while it runs",
			ConfirmState{Budget: 4, Used: 2, NTrials: 40, Done: 22, Remaining: 18, Ranked: []Measured{{Key: "a", Mean: 120, N: 2, Disputed: true, Running: true}}, CV: 0.05},
			Confirm{}, false},
		{"only the leader: a disputed rival waits for the end",
			ConfirmState{Budget: 4, Used: 2, NTrials: 40, Done: 22, Remaining: 18, Ranked: []Measured{{Key: "b", Mean: 130, N: 1}, disputed}, CV: 0.05},
			Confirm{}, false},
		{"measured three times already",
			ConfirmState{Budget: 4, Used: 2, NTrials: 40, Done: 22, Remaining: 18, Ranked: []Measured{{Key: "a", Mean: 120, N: 3, Disputed: true}}, CV: 0.05},
			Confirm{}, false},
		{"within the grown budget only",
			ConfirmState{Budget: 4, Used: ConfirmLimit(4), NTrials: 40, Done: 22, Remaining: 18, Ranked: []Measured{disputed}, CV: 0.05},
			Confirm{}, false},
		{"no budget, no third measurement",
			ConfirmState{NTrials: 40, Done: 22, Remaining: 18, Ranked: []Measured{disputed}, CV: 0.05},
			Confirm{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := NextConfirm(c.s)
			if got != c.want || ok != c.ok {
				t.Errorf("NextConfirm = %v, %v; want %v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestPriorCV(t *testing.T) {
	for _, c := range []struct {
		measured float64
		df       int
		assumed  float64
		want     float64
	}{
		{0.05, 0, 0.05, 0.05},
		{0.02, 0, 0.05, 0.02}, // no repeats: what the caller measured
		{0.09, 3, 0, 0.09},
		{0.01, 2, 0.05, math.Sqrt((2*0.0001 + 2*0.0025) / 4)},
	} {
		if got := PriorCV(c.measured, c.df, c.assumed); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("PriorCV(%v, %d, %v) = %v, want %v", c.measured, c.df, c.assumed, got, c.want)
		}
	}
}
