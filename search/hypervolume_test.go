package search

import (
	"math"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestHypervolumeHandComputed(t *testing.T) {
	minMin := []space.Objective{minObj("a"), minObj("b")}
	maxMin := []space.Objective{maxObj("tps"), minObj("tpot")}
	min3 := []space.Objective{minObj("a"), minObj("b"), minObj("c")}
	minMinMax := []space.Objective{minObj("a"), minObj("b"), maxObj("c")}
	cases := []struct {
		name   string
		points [][]float64
		objs   []space.Objective
		ref    []float64
		want   float64
	}{
		// Staircase of three boxes: 3·1 + 2·1 + 1·1.
		{"2-D staircase", [][]float64{{1, 3}, {2, 2}, {3, 1}}, minMin, []float64{4, 4}, 6},
		{"2-D order does not matter", [][]float64{{3, 1}, {1, 3}, {2, 2}}, minMin, []float64{4, 4}, 6},
		{"2-D dominated point adds nothing", [][]float64{{1, 3}, {2, 2}, {3, 1}, {3, 3}, {2, 2}}, minMin, []float64{4, 4}, 6},
		{"2-D point outside ref adds nothing", [][]float64{{1, 3}, {0, 5}, {4, 0}}, minMin, []float64{4, 4}, 3},
		// Same staircase with the first objective maximised: tps 3,2,1 vs ref 0.
		{"2-D maximise first", [][]float64{{3, 3}, {2, 2}, {1, 1}}, maxMin, []float64{0, 4}, 6},
		{"2-D NaN ignored", [][]float64{{3, 3}, {math.NaN(), 0}}, maxMin, []float64{0, 4}, 3},
		{"3-D single box", [][]float64{{1, 1, 1}}, min3, []float64{2, 3, 4}, 6},
		// Boxes of 2 and 4 overlapping in a unit cube at (2,2,2).
		{"3-D two boxes", [][]float64{{1, 2, 2}, {2, 1, 1}}, min3, []float64{3, 3, 3}, 5},
		// Inclusion–exclusion: 2 + 4 + 2.5 − 1 − 1 − 2 + 1.
		{"3-D three boxes", [][]float64{{1, 2, 2}, {2, 1, 1}, {2, 2, 0.5}}, min3, []float64{3, 3, 3}, 5.5},
		{"3-D third maximised", [][]float64{{1, 2, -2}, {2, 1, -1}, {2, 2, -0.5}}, minMinMax, []float64{3, 3, -3}, 5.5},
		{"empty", nil, min3, []float64{3, 3, 3}, 0},
	}
	for _, c := range cases {
		if got := Hypervolume(c.points, c.objs, c.ref); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: Hypervolume = %v, want %v", c.name, got, c.want)
		}
	}
}

// The slicing algorithm must agree with inclusion–exclusion over every
// subset of boxes, which is exact but exponential, on random 3-D and 4-D
// point sets.
func TestHypervolumeMatchesInclusionExclusion(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, d := range []int{3, 4} {
		objs := make([]space.Objective, d)
		ref := make([]float64, d)
		for i := range objs {
			objs[i] = minObj("m")
			ref[i] = 1
		}
		for trial := 0; trial < 20; trial++ {
			pts := make([][]float64, 1+rng.Intn(8))
			for i := range pts {
				pts[i] = make([]float64, d)
				for k := range pts[i] {
					pts[i][k] = math.Round(rng.Float64()*10) / 10 // ties included
				}
			}
			got, want := Hypervolume(pts, objs, ref), inclusionExclusion(pts, ref)
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("d=%d points %v: Hypervolume = %v, inclusion–exclusion = %v", d, pts, got, want)
			}
		}
	}
}

func inclusionExclusion(pts [][]float64, ref []float64) float64 {
	total := 0.0
	for mask := 1; mask < 1<<len(pts); mask++ {
		vol, bits := 1.0, 0
		for k := range ref {
			corner := math.Inf(-1)
			for i := range pts {
				if mask&(1<<i) != 0 {
					corner = math.Max(corner, pts[i][k])
				}
			}
			vol *= math.Max(ref[k]-corner, 0)
		}
		for m := mask; m > 0; m >>= 1 {
			bits += m & 1
		}
		if bits%2 == 1 {
			total += vol
		} else {
			total -= vol
		}
	}
	return total
}

func TestReferencePoint(t *testing.T) {
	objs := []space.Objective{maxObj("tps"), minObj("tpot")}
	got := ReferencePoint([][]float64{{100, 10}, {50, 30}, {80, 20}, {math.NaN(), 99}}, objs)
	// tps: worst 50, range 50 → 45; tpot: worst 30, range 20 → 32.
	want := []float64{45, 32}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("ReferencePoint = %v, want %v", got, want)
		}
	}
	// A single point still gets a reference strictly outside it, so its
	// hypervolume is positive.
	one := [][]float64{{100, 10}}
	ref := ReferencePoint(one, objs)
	if ref[0] != 90 || ref[1] != 11 {
		t.Errorf("ReferencePoint of one point = %v, want [90 11]", ref)
	}
	if hv := Hypervolume(one, objs, ref); math.Abs(hv-10) > 1e-9 {
		t.Errorf("hypervolume of one point against its own reference = %v, want 10", hv)
	}
	if ReferencePoint(nil, objs) != nil {
		t.Error("ReferencePoint of no points should be nil")
	}
}

func TestNoiseTies(t *testing.T) {
	cases := []struct {
		name  string
		front [][]float64
		cv    float64
		want  []bool
	}{
		// 100 vs 101: tolerance 2·0.01·101·√2 ≈ 2.86; 10 vs 10.1: ≈ 0.286.
		{"neighbours within noise, given out of order", [][]float64{{150, 5}, {101, 10.1}, {100, 10}}, 0.01, []bool{false, true, true}},
		{"one objective outside noise", [][]float64{{100, 10}, {101, 11}}, 0.01, []bool{false, false}},
		{"zero noise only ties duplicates", [][]float64{{100, 10}, {100, 10}, {101, 10}}, 0, []bool{true, true, false}},
		// Tied to the previous but not the next neighbour: the chain does not
		// spread beyond pairs that are themselves within noise.
		{"chain", [][]float64{{100, 10}, {102, 10}, {106, 10}}, 0.01, []bool{true, true, false}},
	}
	for _, c := range cases {
		got := NoiseTies(c.front, c.cv)
		for i := range c.want {
			if got[i] != c.want[i] {
				t.Errorf("%s: NoiseTies = %v, want %v", c.name, got, c.want)
				break
			}
		}
	}
}
