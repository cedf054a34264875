package modelfree

import (
	"math"
	"strings"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// familyKnobs are the knobs whose values make a config's family: the
// engine and how the model is spread over the GPUs. A family's other
// knobs (memory, batching, kernels) move its throughput by a factor; the
// family sets the scale (GLM-5.2: SGLang with DP attention over dp=8 is
// twice any other family at its best, and no better at its median).
var familyKnobs = []string{"engine", "tp", "dp", "pp", "ep", "enable_dp_attention"}

// families indexes the families of a space's configs.
type families struct {
	knobs []string
	index map[string]int
	keys  []string
}

// newFamilies collects the families of the pool's configs, in pool order.
func newFamilies(sp *space.Space, pool []space.Config) *families {
	f := &families{index: map[string]int{}}
	for _, k := range familyKnobs {
		if _, ok := sp.Param(k); ok {
			f.knobs = append(f.knobs, k)
		}
	}
	for _, c := range pool {
		k := f.key(c)
		if _, seen := f.index[k]; !seen {
			f.index[k] = len(f.keys)
			f.keys = append(f.keys, k)
		}
	}
	return f
}

// key names c's family: its family knobs' values ("-" when absent).
func (f *families) key(c space.Config) string {
	var b strings.Builder
	for _, k := range f.knobs {
		v, ok := c[k]
		s := "-"
		if ok {
			s = space.FormatValue(v)
		}
		b.WriteString(k + "=" + s + " ")
	}
	return b.String()
}

// encode is one indicator per family (all zero for a family the pool did
// not have).
func (f *families) encode(c space.Config) []float64 {
	x := make([]float64, len(f.keys))
	if i, ok := f.index[f.key(c)]; ok {
		x[i] = 1
	}
	return x
}

// scootPoolSamples is how many random configs stand for an infinite or
// large space in the design and the family index.
const scootPoolSamples = 2000

// pool is every config of a small finite space within its rules, else
// seeded random configs within them.
func (m *scootModel) pool() []space.Config {
	if g := m.finiteGrid(); g != nil {
		return g
	}
	var out []space.Config
	for range scootPoolSamples {
		if c := m.sp.Sample(m.rng); m.sp.Check(m.sp.WithTargetEngine(c)) == nil {
			out = append(out, c)
		}
	}
	return out
}

// startDesign is the start-up design: one config per family (in a seeded
// order), then more until search.StartupTrials, scootDesign at most. Each
// design point is a Latin hypercube row over the other knobs: every
// value of a knob comes round before any repeats; the pool config of the
// family nearest that row is taken.
func (m *scootModel) startDesign() []space.Config {
	pool := m.pool()
	if len(pool) == 0 {
		return []space.Config{}
	}
	byFam := make([][]space.Config, len(m.fam.keys))
	for _, c := range pool {
		i := m.fam.index[m.fam.key(c)]
		byFam[i] = append(byFam[i], c)
	}
	n := min(max(len(byFam), search.StartupTrials), scootDesign)
	rows := m.hypercube(n)
	famOrder := m.rng.Perm(len(byFam))
	var out []space.Config
	chosen := map[string]bool{}
	for i := range n {
		cands := pool
		if i < len(famOrder) {
			cands = byFam[famOrder[i]]
		}
		if c, ok := m.nearest(cands, rows[i], chosen); ok {
			chosen[search.ConfigKey(m.sp, c)] = true
			out = append(out, c)
		}
	}
	return out
}

// hypercube is n rows of values of the knobs that are not family knobs:
// for each knob, its values in a seeded order repeated to n.
func (m *scootModel) hypercube(n int) []space.Config {
	rows := make([]space.Config, n)
	for i := range rows {
		rows[i] = space.Config{}
	}
	for _, p := range m.order {
		if m.isFamilyKnob(p.Name) {
			continue
		}
		vals := m.values(p)
		perm := m.rng.Perm(len(vals))
		for i := range rows {
			if i%len(vals) == 0 && i > 0 {
				perm = m.rng.Perm(len(vals))
			}
			rows[i][p.Name] = vals[perm[i%len(vals)]]
		}
	}
	return rows
}

func (m *scootModel) isFamilyKnob(name string) bool {
	for _, k := range m.fam.knobs {
		if k == name {
			return true
		}
	}
	return false
}

// values are a knob's grid, or five evenly spread values when it is
// continuous.
func (m *scootModel) values(p space.Param) []any {
	if vals, ok := p.Grid(); ok {
		return vals
	}
	out := make([]any, search.GridFloatPoints)
	for i := range out {
		f := float64(i) / float64(search.GridFloatPoints-1)
		switch {
		case p.Log && p.Low > 0:
			out[i] = math.Exp(math.Log(p.Low) + f*(math.Log(p.High)-math.Log(p.Low)))
		default:
			out[i] = p.Low + f*(p.High-p.Low)
		}
		if p.Kind == space.Int {
			out[i] = int64(math.Round(out[i].(float64)))
		}
	}
	return out
}

// nearest is the config of cands, not chosen yet, that agrees with row on
// the most knobs (ties: the first in cands after a seeded shift).
func (m *scootModel) nearest(cands []space.Config, row space.Config, chosen map[string]bool) (space.Config, bool) {
	if len(cands) == 0 {
		return nil, false
	}
	best, bestD := -1, math.Inf(1)
	shift := m.rng.Intn(len(cands))
	for j := range cands {
		i := (j + shift) % len(cands)
		c := cands[i]
		if chosen[search.ConfigKey(m.sp, c)] {
			continue
		}
		if d := m.rowDistance(c, row); d < bestD {
			best, bestD = i, d
		}
	}
	if best < 0 {
		return nil, false
	}
	return cands[best], true
}

// rowDistance counts the knobs of row c differs on.
func (m *scootModel) rowDistance(c, row space.Config) float64 {
	d := 0.0
	for k, want := range row {
		got, ok := c[k]
		switch {
		case !ok:
			// an inactive knob matches nothing but costs less than a
			// wrong value: the row could not have known.
			d += 0.5
		case !search.SameValue(got, want):
			d += 1
		}
	}
	return d
}
