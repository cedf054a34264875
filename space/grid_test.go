package space

import (
	"math"
	"testing"
)

// TestGridThinsAWideRange: a range too wide to list is enumerated at
// MaxGridLevels values on its steps, both ends included (listing 1..1e9
// took minutes and gigabytes in the prior); a narrow one is listed whole.
func TestGridThinsAWideRange(t *testing.T) {
	cases := []struct {
		name string
		p    Param
		n    int // values, 0: MaxGridLevels at most
	}{
		{"narrow int", Param{Name: "x", Kind: Int, Low: 1, High: 100}, 100},
		{"wide int", Param{Name: "x", Kind: Int, Low: 1, High: 1e9}, 0},
		{"wide log int", Param{Name: "x", Kind: Int, Low: 1, High: 1e9, Log: true}, 0},
		{"wide stepped int", Param{Name: "x", Kind: Int, Low: 0, High: 1e9, Step: 8}, 0},
		{"fine float step", Param{Name: "x", Kind: Float, Low: 0.1, High: 0.9, Step: 1e-9}, 0},
	}
	for _, c := range cases {
		vals, ok := c.p.Grid()
		if !ok || len(vals) < 2 || len(vals) > MaxGridLevels || (c.n > 0 && len(vals) != c.n) {
			t.Fatalf("%s: %d values (ok %v)", c.name, len(vals), ok)
		}
		lo, _ := Number(vals[0], false)
		hi, _ := Number(vals[len(vals)-1], false)
		if lo != c.p.Low || math.Abs(hi-c.p.High) > 1e-9 {
			t.Errorf("%s: spans %v..%v, want %v..%v", c.name, lo, hi, c.p.Low, c.p.High)
		}
		for _, v := range vals {
			if !c.p.Contains(v) {
				t.Errorf("%s: %v is not in the domain", c.name, v)
				break
			}
		}
	}
}
