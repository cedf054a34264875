package search

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/servetune/servetune/space"
)

// The memo answers what Front answers, index for index, along seeded
// random histories of a loop: configs added, measured again (front
// members among them), turned infeasible or undefined, ties and equal
// points, two and three objectives of either direction.
func TestFrontMemoIsFront(t *testing.T) {
	objSets := [][]space.Objective{
		{{Metric: "a", Direction: space.Maximize}, {Metric: "b", Direction: space.Minimize}},
		{{Metric: "a", Direction: space.Minimize}, {Metric: "b", Direction: space.Minimize}, {Metric: "c", Direction: space.Maximize}},
	}
	for seed := int64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		objs := objSets[seed%2]
		point := func() Point {
			p := Point{Values: make([]float64, len(objs))}
			for i := range p.Values {
				p.Values[i] = float64(rng.Intn(12)) // coarse: ties and equal points
			}
			switch rng.Intn(15) {
			case 0:
				p.Violation = rng.Float64()
			case 1:
				p.Values[rng.Intn(len(objs))] = math.NaN()
			}
			return p
		}
		var pts []Point
		var m FrontMemo
		for step := range 120 {
			switch {
			case len(pts) == 0 || rng.Intn(3) > 0:
				pts = append(pts, point())
			case rng.Intn(2) == 0:
				// Measured again: often a front member, as confirmation does.
				front := Front(pts, objs)
				i := rng.Intn(len(pts))
				if len(front) > 0 && rng.Intn(2) == 0 {
					i = front[rng.Intn(len(front))]
				}
				pts[i] = point()
			default:
				i := rng.Intn(len(pts))
				pts[i].Values = slices.Clone(pts[i].Values)
				pts[i].Values[0] += float64(rng.Intn(5) - 2)
			}
			if got, want := m.Front(pts, objs), Front(pts, objs); !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: memo %v, Front %v", seed, step, got, want)
			}
		}
	}
}

// A memo asked about a shorter list or other objectives starts again
// rather than answer from points that are gone.
func TestFrontMemoStartsAgain(t *testing.T) {
	objs := []space.Objective{{Metric: "a", Direction: space.Maximize}, {Metric: "b", Direction: space.Maximize}}
	pts := []Point{{Values: []float64{1, 3}}, {Values: []float64{3, 1}}, {Values: []float64{2, 2}}}
	var m FrontMemo
	m.Front(pts, objs)
	if got, want := m.Front(pts[:1], objs), Front(pts[:1], objs); !slices.Equal(got, want) {
		t.Errorf("shorter: %v, want %v", got, want)
	}
	other := []space.Objective{objs[0], {Metric: "b", Direction: space.Minimize}}
	if got, want := m.Front(pts, other), Front(pts, other); !slices.Equal(got, want) {
		t.Errorf("other objectives: %v, want %v", got, want)
	}
}
