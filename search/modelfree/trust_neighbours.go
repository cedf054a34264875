package modelfree

import (
	"github.com/servetune/servetune/space"

	"github.com/servetune/servetune/search"
)

// trustDraws is how many values a continuous knob's neighbours try.
const trustDraws = 4

// neighbours are the configs one knob away from some config of ring: an
// active knob set to each of its other values, the knobs that change
// turns on set to each of theirs, within the space's rules, each once
// and none of ring.
func (m *trustModel) neighbours(ring []space.Config) []space.Config {
	seen := map[string]bool{}
	for _, c := range ring {
		seen[search.ConfigKey(m.sp, c)] = true
	}
	var out []space.Config
	for _, c := range ring {
		for _, p := range m.order {
			if !m.sp.Active(p, c) {
				continue
			}
			for _, v := range m.steps(p, c[p.Name]) {
				n := c.Clone()
				n[p.Name] = v
				for _, r := range m.repair(n) {
					k := search.ConfigKey(m.sp, r)
					if seen[k] || m.sp.Check(m.sp.WithTargetEngine(r)) != nil {
						continue
					}
					seen[k] = true
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// values are a knob's grid, or seeded draws when it is continuous.
func (m *trustModel) values(p space.Param) []any {
	if vals, ok := p.Grid(); ok {
		return vals
	}
	out := make([]any, trustDraws)
	for i := range out {
		out[i] = p.Random(m.rng)
	}
	return out
}

// repair drops the knobs c's values turn off and expands those they turn
// on into one config per value, along the space's order.
func (m *trustModel) repair(c space.Config) []space.Config {
	out := []space.Config{c}
	for _, p := range m.order {
		var next []space.Config
		for _, x := range out {
			_, set := x[p.Name] // not Has: "default" is a value here
			switch active := m.sp.Active(p, x); {
			case !active:
				delete(x, p.Name)
				next = append(next, x)
			case set:
				next = append(next, x)
			default:
				for _, v := range m.values(p) {
					y := x.Clone()
					y[p.Name] = v
					next = append(next, y)
				}
			}
		}
		out = next
	}
	return out
}

// steps are the values one step either side of v when the knob's values
// are ordered (numbers), else every other value.
func (m *trustModel) steps(p space.Param, v any) []any {
	vals := m.values(p)
	at, ordered := -1, p.Kind != space.Categorical
	if _, numeric := ordinal(p, v); numeric {
		ordered = true
	}
	for i, x := range vals {
		if space.FormatValue(x) == space.FormatValue(v) {
			at = i
		}
	}
	var out []any
	for i, x := range vals {
		if i == at || ordered && at >= 0 && (i < at-1 || i > at+1) {
			continue
		}
		out = append(out, x)
	}
	return out
}
