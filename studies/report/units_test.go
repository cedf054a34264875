package report

import (
	"math"
	"testing"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func TestBestSoFar(t *testing.T) {
	nan := math.NaN()
	pts := []Point{
		{Trial: 1, Values: []float64{nan}, Hours: 1},                  // failed
		{Trial: 2, Values: []float64{10}, Feasible: true, Hours: 2},   //
		{Trial: 3, Values: []float64{30}, Feasible: false, Hours: 3},  // missed an SLO: not best
		{Trial: 4, Values: []float64{8}, Feasible: true, Hours: 4.5},  //
		{Trial: 5, Values: []float64{12}, Feasible: true, Hours: 5.5}, //
	}
	for _, tc := range []struct {
		dir  space.Direction
		want []Step
	}{
		{space.Maximize, []Step{{2, 2, 10}, {3, 3, 10}, {4, 4.5, 10}, {5, 5.5, 12}}},
		{space.Minimize, []Step{{2, 2, 10}, {3, 3, 10}, {4, 4.5, 8}, {5, 5.5, 8}}},
	} {
		got := BestSoFar(pts, 0, tc.dir)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: %+v, want %+v", tc.dir, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: step %d = %+v, want %+v", tc.dir, i, got[i], tc.want[i])
			}
		}
	}
}

func TestKnobX(t *testing.T) {
	num := Knob{Name: "mem_fraction", Numeric: true}
	cat := Knob{Name: "chunked_prefill", Levels: []string{"default", "8192", "16384"}}
	for _, tc := range []struct {
		k    Knob
		c    space.Config
		want float64
	}{
		{num, space.Config{"mem_fraction": 0.85}, 0.85},
		{num, space.Config{}, math.NaN()},
		{cat, space.Config{"chunked_prefill": int64(16384)}, 2},
		{cat, space.Config{"chunked_prefill": "default"}, 0},
		{cat, space.Config{"chunked_prefill": "other"}, math.NaN()},
	} {
		got := tc.k.X(tc.c)
		if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("%s.X(%v) = %v, want %v", tc.k.Name, tc.c, got, tc.want)
		}
	}
}

func TestFailuresGroupByClassWithAnExample(t *testing.T) {
	trials := synthTrials(40)
	got := failures(trials)
	total := 0
	for _, g := range got {
		total += g.Count
		if g.Line == "" || g.Example == 0 {
			t.Errorf("group %+v has no example line", g)
		}
	}
	notComplete := 0
	for _, tr := range trials {
		if tr.State != store.Complete {
			notComplete++
		}
	}
	if total != notComplete {
		t.Errorf("groups count %d trials, %d did not complete", total, notComplete)
	}
	if got[0].Count < got[len(got)-1].Count {
		t.Errorf("groups not ordered by count: %+v", got)
	}
}
