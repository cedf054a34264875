package search

import (
	"math"

	"github.com/servetune/servetune/space"
)

// numericSteps are the configs one grid step away from c on one ordered
// numeric knob, with the same knobs active (a step that switches a
// conditional knob on or off leads elsewhere).
func numericSteps(sp *space.Space, c space.Config) []space.Config {
	var out []space.Config
	for _, p := range sp.Params {
		v, ok := c[p.Name]
		grid, finite := p.Grid()
		if !ok || !finite || p.Kind == space.Categorical {
			continue
		}
		for _, w := range adjacent(grid, v) {
			s := c.Clone()
			s[p.Name] = w
			if sameActive(sp, c, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// adjacent is the grid values either side of the one nearest v.
func adjacent(grid []any, v any) []any {
	x, ok := space.Number(v, false)
	if !ok || len(grid) == 0 {
		return nil
	}
	at := 0
	for i, g := range grid {
		if math.Abs(num(g)-x) < math.Abs(num(grid[at])-x) {
			at = i
		}
	}
	var out []any
	if at > 0 {
		out = append(out, grid[at-1])
	}
	if at+1 < len(grid) {
		out = append(out, grid[at+1])
	}
	return out
}

func num(v any) float64 {
	x, _ := space.Number(v, false)
	return x
}

// sameActive reports whether the same knobs exist under a and b.
func sameActive(sp *space.Space, a, b space.Config) bool {
	for _, p := range sp.Params {
		if _, in := a[p.Name]; in != sp.Active(p, b) {
			return false
		}
	}
	return true
}
