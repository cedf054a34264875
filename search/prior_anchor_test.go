package search

import (
	"math"
	"testing"
)

func TestAnchoredResidual(t *testing.T) {
	cases := []struct {
		name       string
		neighbours []float64
		additive   float64
		want       float64
	}{
		{"no measured neighbour: the additive model", nil, 0.4, 0.4},
		{"one neighbour, weighed as one measurement beside the model", []float64{1.0}, 0.4, 0.7},
		{"three neighbours", []float64{1.0, 1.0, 0.6}, 0.2, 0.7},
	}
	for _, c := range cases {
		if got := anchoredResidual(c.neighbours, c.additive); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: anchoredResidual = %v, want %v", c.name, got, c.want)
		}
	}
}
