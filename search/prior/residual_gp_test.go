package prior

import (
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestGPPositions(t *testing.T) {
	sp := &space.Space{Params: []space.Param{
		{Name: "backend", Kind: space.Categorical, Values: []any{"a", "b", "c"}},
		{Name: "bs", Kind: space.Int, Low: 1, High: 256, Log: true},
		{Name: "eager", Kind: space.Categorical, Values: []any{false, true}},
	}}
	for _, c := range []struct {
		name string
		cfg  space.Config
		want []float64
	}{
		{"declared order, log scale, booleans", space.Config{"backend": "c", "bs": int64(16), "eager": true}, []float64{1, 0.5, 1}},
		{"unset and off-domain knobs sit in the middle", space.Config{"backend": "z"}, []float64{0.5, 0.5, 0.5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := gpPositions(sp, c.cfg)
			for i := range got {
				if math.Abs(got[i]-c.want[i]) > 1e-12 {
					t.Fatalf("gpPositions = %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestGPFit(t *testing.T) {
	far := []float64{1, 1}
	for _, c := range []struct {
		name     string
		pts      []gpPoint
		at       []float64
		lo, hi   float64
		wantNone bool
	}{
		{"one point says nothing", []gpPoint{{[]float64{0, 0}, 0.2, 1}}, nil, 0, 0, true},
		{"no leftovers leave the prior's ranking", []gpPoint{{[]float64{0, 0}, 0, 1}, {far, 0, 1}}, nil, 0, 0, true},
		// Leftovers below the 5% noise: the posterior moves a neighbour
		// by well under the measured config's own leftover.
		{"leftovers within the noise move it a little", []gpPoint{{[]float64{0, 0}, 0.03, 1}, {far, -0.03, 1}}, []float64{0, 0.1}, 0.001, 0.012, false},
		// Leftovers of ±20% against 5% noise: a config next to the one
		// that beat its prediction rises by most of it, one next to the
		// one that fell short drops.
		{"next to a config that beat its prediction", []gpPoint{{[]float64{0, 0}, 0.2, 1}, {far, -0.2, 1}}, []float64{0, 0.1}, 0.12, 0.2, false},
		{"next to a config that fell short", []gpPoint{{[]float64{0, 0}, 0.2, 1}, {far, -0.2, 1}}, []float64{1, 0.9}, -0.2, -0.12, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := gpFit(c.pts, gpCV)
			if c.wantNone {
				if w != nil {
					t.Fatalf("gpFit = %v, want none", w)
				}
				return
			}
			if m := gpMean(c.pts, w, c.at); m < c.lo || m > c.hi {
				t.Errorf("gpMean at %v = %g, want in [%g, %g]", c.at, m, c.lo, c.hi)
			}
		})
	}
}
