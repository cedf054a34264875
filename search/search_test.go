package search

import (
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func maxObj(m string) space.Objective { return space.Objective{Metric: m, Direction: space.Maximize} }
func minObj(m string) space.Objective { return space.Objective{Metric: m, Direction: space.Minimize} }

func TestDominatesFeasibilityFirst(t *testing.T) {
	objs := []space.Objective{maxObj("tps"), minObj("tpot")}
	cases := []struct {
		name string
		a, b Point
		want bool
	}{
		{"better on both", Point{Values: []float64{10, 5}}, Point{Values: []float64{8, 6}}, true},
		{"trade-off", Point{Values: []float64{10, 7}}, Point{Values: []float64{8, 6}}, false},
		{"equal", Point{Values: []float64{10, 5}}, Point{Values: []float64{10, 5}}, false},
		{"better on one, tied on other", Point{Values: []float64{10, 5}}, Point{Values: []float64{9, 5}}, true},
		{"feasible beats infeasible", Point{Values: []float64{1, 100}}, Point{Values: []float64{10, 1}, Violation: 0.1}, true},
		{"infeasible never beats feasible", Point{Values: []float64{10, 1}, Violation: 0.1}, Point{Values: []float64{1, 100}}, false},
		{"less violation wins", Point{Values: []float64{1, 1}, Violation: 0.1}, Point{Values: []float64{9, 1}, Violation: 0.5}, true},
	}
	for _, c := range cases {
		if got := Dominates(c.a, c.b, objs); got != c.want {
			t.Errorf("%s: Dominates = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestFrontAndBest(t *testing.T) {
	objs := []space.Objective{maxObj("tps"), minObj("tpot")}
	pts := []Point{
		{Values: []float64{100, 50}},                 // 0 front
		{Values: []float64{80, 30}},                  // 1 front
		{Values: []float64{90, 60}},                  // 2 dominated by 0
		{Values: []float64{200, 10}, Violation: 0.2}, // 3 infeasible
		{Values: []float64{60, 20}},                  // 4 front
		{Values: []float64{70, math.NaN()}},          // 5 incomplete
	}
	got := Front(pts, objs)
	want := []int{0, 1, 4}
	if len(got) != len(want) {
		t.Fatalf("front = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("front = %v, want %v (ordered by first objective)", got, want)
		}
	}
	if b := Best(pts, objs); b != 0 {
		t.Errorf("best = %d, want 0 (infeasible 3 excluded)", b)
	}
	if b := Best(pts[3:4], objs); b != -1 {
		t.Errorf("best of only infeasible = %d, want -1", b)
	}
}
