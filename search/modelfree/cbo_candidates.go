package modelfree

import (
	"math"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// candidates are random configs and mutations of the best-scoring
// measured ones, each within the space's rules, none measured yet, each
// once.
func (m *cboModel) candidates(scores []float64) []space.Config {
	told := map[string]bool{}
	for _, o := range m.obs {
		told[search.ConfigKey(m.sp, o.Config)] = true
	}
	seen := map[string]bool{}
	var out []space.Config
	add := func(c space.Config) {
		k := search.ConfigKey(m.sp, c)
		if told[k] || seen[k] || m.sp.Check(m.sp.WithTargetEngine(c)) != nil {
			return
		}
		seen[k] = true
		out = append(out, c)
	}
	for range cboRandomCandidates {
		add(m.sp.Sample(m.rng))
	}
	for _, i := range m.parents(scores) {
		for range cboMutations {
			add(m.mutate(m.obs[i].Config))
		}
	}
	return out
}

// parents are the observations with the best scores, best first.
func (m *cboModel) parents(scores []float64) []int {
	var idx []int
	for i, s := range scores {
		if !math.IsNaN(s) && m.obs[i].State == search.Complete {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] > scores[idx[b]] })
	return idx[:min(len(idx), cboParents)]
}

// mutate redraws one or two active knobs of c, then repairs the knobs
// whose `when` the change turned on or off.
func (m *cboModel) mutate(c space.Config) space.Config {
	out := c.Clone()
	for range 1 + m.rng.Intn(2) {
		p := m.order[m.rng.Intn(len(m.order))]
		if m.sp.Active(p, out) {
			out[p.Name] = p.Random(m.rng)
		}
	}
	for _, p := range m.order {
		switch active := m.sp.Active(p, out); {
		case active && !out.Has(p.Name):
			out[p.Name] = p.Random(m.rng)
		case !active:
			delete(out, p.Name)
		}
	}
	return out
}

// encode maps a config to the forests' features: a categorical knob one
// indicator per value (and, when its values are numbers, its rank among
// them, so one split can say "at least 256"), a numeric knob its position in its range (log
// range when Log), −1 when absent (inactive).
func (m *cboModel) encode(c space.Config) []float64 {
	var x []float64
	for _, p := range m.sp.Params {
		v, has := c[p.Name]
		if p.Kind == space.Categorical {
			for _, val := range p.Values {
				x = append(x, b2f(has && space.FormatValue(v) == space.FormatValue(val)))
			}
			if ord, numeric := ordinal(p, v); numeric {
				x = append(x, ord)
			}
			continue
		}
		f, ok := space.Number(v, true)
		if !has || !ok {
			x = append(x, -1)
			continue
		}
		lo, hi := p.Low, p.High
		if p.Log && lo > 0 {
			f, lo, hi = math.Log(max(f, lo)), math.Log(lo), math.Log(hi)
		}
		pos := 0.0
		if hi > lo {
			pos = (f - lo) / (hi - lo)
		}
		x = append(x, pos)
	}
	return x
}

// ordinal is v's rank among a categorical knob's numeric values, scaled
// to [0, 1]; −1 for "default" or an absent knob (nil v). numeric is
// false, whatever v, when the knob has a value that is neither a number
// nor "default" (engine names), or fewer than two numbers.
func ordinal(p space.Param, v any) (rank float64, numeric bool) {
	var nums []float64
	for _, val := range p.Values {
		if space.FormatValue(val) == space.Default {
			continue
		}
		f, ok := space.Number(val, false)
		if !ok {
			return 0, false
		}
		nums = append(nums, f)
	}
	f, ok := space.Number(v, false)
	if !ok || len(nums) < 2 {
		return -1, len(nums) >= 2
	}
	below := 0
	for _, n := range nums {
		if n < f {
			below++
		}
	}
	return float64(below) / float64(len(nums)-1), true
}
