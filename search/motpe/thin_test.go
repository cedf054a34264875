package motpe

import (
	"fmt"
	"testing"

	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// line is a front on x + y = 1 (both minimised): a dense stretch of
// `dense` points in x ∈ [0, 0.01), then x = 0.1, 0.2, …, 1.
func line(dense int) [][]float64 {
	var pts [][]float64
	for i := range dense {
		x := 0.01 * float64(i) / float64(dense)
		pts = append(pts, []float64{x, 1 - x})
	}
	for i := 1; i <= 10; i++ {
		x := float64(i) / 10
		pts = append(pts, []float64{x, 1 - x})
	}
	return pts
}

func TestThinFront(t *testing.T) {
	minMin := []space.Objective{searchtest.MinObj("x"), searchtest.MinObj("y")}
	maxMax := []space.Objective{searchtest.MaxObj("x"), searchtest.MaxObj("y")}
	reversed := line(100)
	for i, j := 0, len(reversed)-1; i < j; i, j = i+1, j-1 {
		reversed[i], reversed[j] = reversed[j], reversed[i]
	}
	crowd := [][]float64{{0, 1}, {0.001, 0.999}, {0.002, 0.998}, {0.003, 0.997}, {1, 0}}
	same := [][]float64{{1, 1}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}
	for _, tc := range []struct {
		name string
		pts  [][]float64
		objs []space.Objective
		k    int
		want string
	}{
		{"no more than k: all", line(3), minMin, 13, "[0 1 2 3 4 5 6 7 8 9 10 11 12]"},
		// The marks fall at x = 0, 0.1, …, 1: the dense stretch keeps its
		// first point, the sparse stretch every point.
		{"spread along the front, not by count", line(100), minMin, 11, "[0 100 101 102 103 104 105 106 107 108 109]"},
		{"the same set given in another order", reversed, minMin, 11, "[0 1 2 3 4 5 6 7 8 9 109]"},
		{"the same walk when both are maximised", line(100), maxMax, 11, "[0 100 101 102 103 104 105 106 107 108 109]"},
		// Fewer marks than sparse points: both ends and the points nearest
		// a third and two thirds of the way.
		{"both ends kept", line(100), minMin, 4, "[0 102 106 109]"},
		// The nearest point to both middle marks is x = 0.003: each mark
		// takes the nearest one after the last kept that leaves one for
		// each mark to come, so k distinct points come back.
		{"k distinct points when marks crowd", crowd, minMin, 4, "[0 2 3 4]"},
		{"duplicates: k of them", same, minMin, 2, "[0 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fmt.Sprint(thinFront(tc.pts, tc.objs, tc.k)); got != tc.want {
				t.Errorf("thinFront(k=%d) = %s, want %s", tc.k, got, tc.want)
			}
		})
	}
}
