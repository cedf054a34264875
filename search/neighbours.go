package search

import (
	"math"
	"strconv"

	"github.com/servetune/servetune/space"
)

// Neighbour is a config one knob step away from another: Knob moved to
// Value, and Config the whole config that move gives (knobs the move
// switches off dropped, knobs it switches on set; see OneKnobNeighbours).
type Neighbour struct {
	Knob   string
	Value  any
	Config space.Config
}

// OneKnobNeighbours are the configs one step of one knob away from c, the
// configs a search settled on c could have missed by a hair: for each knob
// active in c, in declared order, the adjacent value below and above in
// its domain —
//
//   - a list of values (categorical, booleans among them): the entries
//     next to c's in declared order, so a two-valued knob has the other;
//   - a finite range (integers, floats with a step): the grid values
//     (space.Param.Grid, the levels the grid sampler enumerates) next
//     to c's;
//   - a continuous float range: one of the GridFloatPoints levels the
//     grid sampler spaces it at, clamped to the range;
//   - a log range (integer or float): the same number of levels spaced
//     in log space, a factor (high/low)^(1/(GridFloatPoints-1)), an
//     integer moving by one at least.
//
// A move that switches a knob off drops it; one that switches a knob on
// gives it the baseline's value, else its domain's first (lowest) value,
// so the answer is deterministic. Only configs the space accepts
// (space.CheckConfig: legal values, inside the declared domains, no rule
// broken) are kept, each once and never c itself; a problem c has
// itself (a baseline off the declared grid) does not remove them, or the
// incumbent with it would have no neighbours at all.
func OneKnobNeighbours(sp *space.Space, c space.Config) []Neighbour {
	order, err := sp.Order()
	if err != nil {
		order = sp.Params
	}
	seen := map[string]bool{ConfigKey(sp, c): true}
	had := problemSet(sp.CheckConfig(c))
	var out []Neighbour
	for _, p := range sp.Params {
		v, has := c[p.Name]
		if !has || !sp.Active(p, c) {
			continue
		}
		for _, x := range adjacentValues(p, v) {
			n := c.Clone()
			n[p.Name] = x
			n = settleActive(sp, order, n)
			k := ConfigKey(sp, n)
			if seen[k] || !onlyHad(sp.CheckConfig(n), had) {
				continue
			}
			seen[k] = true
			out = append(out, Neighbour{Knob: p.Name, Value: x, Config: n})
		}
	}
	return out
}

// adjacentValues are the values one step below and above v in p's
// domain, below first; none on a side where v is at the domain's end, and
// none at all for a value the domain cannot order ("default" on a range).
func adjacentValues(p space.Param, v any) []any {
	if p.Kind == space.Categorical {
		for i, x := range p.Values {
			if space.FormatValue(x) != space.FormatValue(v) {
				continue
			}
			var out []any
			if i > 0 {
				out = append(out, p.Values[i-1])
			}
			if i+1 < len(p.Values) {
				out = append(out, p.Values[i+1])
			}
			return out
		}
		return nil
	}
	f, ok := space.Number(v, false)
	if !ok {
		return nil
	}
	if vals, finite := p.Grid(); finite && !p.Log {
		return gridAdjacent(vals, f)
	}
	return levelAdjacent(p, f)
}

// gridAdjacent are the largest grid value below f and the smallest above
// (a value off the grid, a baseline's, still has both).
func gridAdjacent(vals []any, f float64) []any {
	var below, above any
	lo, hi := math.Inf(-1), math.Inf(1)
	for _, x := range vals {
		g, _ := space.Number(x, false)
		switch {
		case g < f-1e-9 && g > lo:
			below, lo = x, g
		case g > f+1e-9 && g < hi:
			above, hi = x, g
		}
	}
	var out []any
	for _, x := range []any{below, above} {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// levelAdjacent steps a continuous or log range by the spacing of
// GridFloatPoints levels, clamped to the range: a step toward an end the
// value is nearer than one step reaches the end.
func levelAdjacent(p space.Param, f float64) []any {
	steps := float64(GridFloatPoints - 1)
	down := func(x float64) float64 { return x - (p.High-p.Low)/steps }
	up := func(x float64) float64 { return x + (p.High-p.Low)/steps }
	if p.Log && p.Low > 0 {
		factor := math.Pow(p.High/p.Low, 1/steps)
		down = func(x float64) float64 { return x / factor }
		up = func(x float64) float64 { return x * factor }
	}
	var out []any
	if f > p.Low+1e-9 {
		out = append(out, levelValue(p, math.Max(p.Low, down(f)), f, -1))
	}
	if f < p.High-1e-9 {
		out = append(out, levelValue(p, math.Min(p.High, up(f)), f, 1))
	}
	return out
}

// levelValue is x as a value of p: an integer range's rounded, moved one
// past f in direction dir when rounding lands back on f.
func levelValue(p space.Param, x, f float64, dir int) any {
	if p.Kind != space.Int {
		// Ten digits: a level is not a measured value, and 0.32500000000000007
		// in a report or a config key says nothing 0.325 does not.
		r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 10, 64), 64)
		return r
	}
	r := math.Round(x)
	if r == math.Round(f) {
		r += float64(dir)
	}
	return int64(r)
}

// settleActive makes c, changed in one knob, follow the space's `when`
// conditions along its order: a knob switched off is dropped, a knob
// switched on takes the baseline's value, else its domain's first.
func settleActive(sp *space.Space, order []space.Param, c space.Config) space.Config {
	return SettleActive(sp, order, c, func(p space.Param) any { return firstValue(sp, p) })
}

// SettleActive makes c, changed in one knob, follow the space's `when`
// conditions along order: a knob whose condition no longer holds is
// dropped, and one that became active takes fill's value. The report's
// neighbours fill deterministically, the prior's at random.
func SettleActive(sp *space.Space, order []space.Param, c space.Config, fill func(space.Param) any) space.Config {
	for _, p := range order {
		_, has := c[p.Name]
		switch active := sp.Active(p, c); {
		case !active && has:
			delete(c, p.Name)
		case active && !has:
			c[p.Name] = fill(p)
		}
	}
	return c
}

// firstValue is the value a knob switched on takes: the baseline's when
// the baseline sets one inside the domain, else the domain's first.
func firstValue(sp *space.Space, p space.Param) any {
	if v, ok := sp.Baseline[p.Name]; ok && p.Contains(v) {
		return v
	}
	if vals, ok := p.Grid(); ok && len(vals) > 0 {
		return vals[0]
	}
	return p.Low
}

// problemSet keys a config's problems, to tell a neighbour's new ones
// from those it shares with the config it steps from.
func problemSet(ps []space.Problem) map[string]bool {
	out := make(map[string]bool, len(ps))
	for _, p := range ps {
		out[p.Key+"\x00"+p.Msg] = true
	}
	return out
}

// onlyHad says whether every problem of ps is one of had.
func onlyHad(ps []space.Problem, had map[string]bool) bool {
	for _, p := range ps {
		if !had[p.Key+"\x00"+p.Msg] {
			return false
		}
	}
	return true
}
