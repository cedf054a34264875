package search

import (
	"math"
	"testing"
)

func TestSpearman(t *testing.T) {
	cases := []struct {
		x, y []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		{[]float64{1, 1, 1}, []float64{1, 2, 3}, 0},
		{[]float64{1, 2, 3}, []float64{5, 5, 5}, 0}, // a simulator answering one value ranks nothing
	}
	for _, c := range cases {
		if got := Spearman(c.x, c.y); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Spearman(%v, %v) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
}
