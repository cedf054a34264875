package search

import "github.com/servetune/servetune/space"

// GridFloatPoints is how many points a continuous float range contributes
// to a grid.
const GridFloatPoints = 5

// Grid enumerates every config of the space: the product of the knobs'
// finite domains (continuous floats at GridFloatPoints evenly spaced
// values), following `when` conditions so inactive knobs are not
// multiplied in. Configs are in declaration order of the knobs.
func Grid(sp *space.Space) []space.Config {
	order, err := sp.Order()
	if err != nil {
		return nil
	}
	out := []space.Config{{}}
	for _, p := range order {
		vals, ok := p.Grid()
		if !ok {
			vals = make([]any, GridFloatPoints)
			for i := range vals {
				vals[i] = p.Low + (p.High-p.Low)*float64(i)/float64(GridFloatPoints-1)
			}
		}
		next := make([]space.Config, 0, len(out)*len(vals))
		for _, c := range out {
			if !sp.Active(p, c) {
				next = append(next, c)
				continue
			}
			for _, v := range vals {
				d := c.Clone()
				d[p.Name] = v
				next = append(next, d)
			}
		}
		out = next
	}
	return out
}
