package search

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestPruneRule(t *testing.T) {
	r := DefaultPruneRule()
	one := []space.Objective{maxObj("tps")}
	two := []space.Objective{maxObj("tps"), minObj("tpot")}
	cp := func(step int, v ...float64) Checkpoint { return Checkpoint{Step: step, Values: v} }
	cases := []struct {
		name string
		cur  Checkpoint
		inc  []Checkpoint
		objs []space.Objective
		want bool
	}{
		{"too early to judge", cp(2, 10), []Checkpoint{cp(2, 100)}, one, false},
		{"far behind at 30%", cp(3, 50), []Checkpoint{cp(3, 100)}, one, true},
		{"within the 30% margin (31%)", cp(3, 75), []Checkpoint{cp(3, 100)}, one, false},
		{"a smaller gap pruned at 90% (margin 7%)", cp(9, 88), []Checkpoint{cp(9, 100)}, one, true},
		{"ahead", cp(5, 120), []Checkpoint{cp(5, 100)}, one, false},
		{"no incumbent", cp(5, 1), nil, one, false},
		{"minimise: far slower", Checkpoint{Step: 5, Values: []float64{300}}, []Checkpoint{{Step: 5, Values: []float64{100}}}, []space.Objective{minObj("tpot")}, true},
		{"multi: worse on both", cp(5, 50, 300), []Checkpoint{cp(5, 100, 100)}, two, true},
		{"multi: trade-off survives", cp(5, 50, 50), []Checkpoint{cp(5, 100, 100)}, two, false},
		{"multi: one front member suffices", cp(5, 50, 300), []Checkpoint{cp(5, 40, 50), cp(5, 100, 100)}, two, true},
		{"infeasible incumbent ignored", cp(5, 50), []Checkpoint{{Step: 5, Values: []float64{100}, Violation: 0.5}}, one, false},
		{"SLO already missed by far", Checkpoint{Step: 5, Values: []float64{100}, Violation: 0.4}, nil, one, true},
		{"SLO missed within margin", Checkpoint{Step: 5, Values: []float64{100}, Violation: 0.05}, nil, one, false},
	}
	for _, c := range cases {
		got, why := r.ShouldPrune(c.cur, c.inc, c.objs)
		if got != c.want {
			t.Errorf("%s: prune = %v (%s), want %v", c.name, got, why, c.want)
		}
		if got && !strings.Contains(why, "0% of the requests") {
			t.Errorf("%s: reason %q does not say when", c.name, why)
		}
	}
}

func TestProjectScalesByTheIncumbentsRatio(t *testing.T) {
	cur := Checkpoint{Step: 3, Values: []float64{60, 30}}
	inc := Checkpoint{Step: 3, Values: []float64{120, 20}}
	got := Project(cur, inc, []float64{200, 25})
	// Half the incumbent's throughput at this step → half its final; 1.5×
	// its TPOT → 1.5× its final.
	if got[0] != 100 || got[1] != 37.5 {
		t.Errorf("Project = %v, want [100 37.5]", got)
	}
	if p := Project(cur, Checkpoint{Values: []float64{0, 20}}, []float64{200, 25}); !HasNaN(p[:1]) {
		t.Errorf("a zero incumbent value projects %v, want NaN", p[0])
	}
}
