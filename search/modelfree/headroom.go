package modelfree

import (
	"math"
	"sort"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// headroomModel is scoot reading the engines' out-of-memory messages.
// On GLM-5.2 without the prior the seeds are bimodal: a seed that meets
// the best family (SGLang, DP attention over dp=8) at a memory fraction
// it cannot fit runs out of memory there two to five times and then
// spends its trials elsewhere, never measuring the family at the cliff
// where its optimum sits. The engine says how much memory was missing;
// headroom uses it twice:
//
//   - its memory model (fractionMemory) places the family's cliff on the
//     memory fraction at the OOM's fraction minus the shortfall, in the
//     direction the message gives, instead of ruling out the cone above
//     the OOM only;
//   - the next proposal after such an OOM is its repair: the same config
//     at the highest fraction that the shortfall says fits (the lowest
//     that could, when the pool was too small). The config was the
//     acquisition's pick; its repair is the nearest config that runs.
//
// Repairs do not count towards scoot's design and local schedule. A
// repair that runs out of memory again is repaired again, up to
// headroomDepth in a chain: PyTorch reports nothing free when what else
// sits outside the fraction already fills it, and then the shortfall is
// a lower bound.
type headroomModel struct {
	*scootModel
	repairs []space.Config
	// depth is how many repairs led to a config.
	depth map[string]int
	// outside is, per family, the most memory an OOM message showed
	// outside the fraction besides its allocation (oomAdvice.outsideGiB).
	outside map[string]float64
}

// headroomDepth bounds a chain of repairs.
const headroomDepth = 3

// NewHeadroom is scoot that reads how far an out-of-memory trial fell
// short and repairs it (see headroomModel).
func NewHeadroom(b search.Build) (search.Sampler, error) {
	m, err := buildSCOOT(b)
	if err != nil {
		return nil, err
	}
	m.mem = newFractionMemory(m.fam)
	return search.NewGuard(b, &headroomModel{scootModel: m, depth: map[string]int{}, outside: map[string]float64{}}), nil
}

func (m *headroomModel) Draw() (space.Config, error) {
	for len(m.repairs) > 0 {
		c := m.repairs[0]
		m.repairs = m.repairs[1:]
		if !m.told(c) && !m.ruledOut(c) {
			return c, nil
		}
	}
	return m.scootModel.Draw()
}

func (m *headroomModel) Learn(o search.Observation) error {
	k := search.ConfigKey(m.sp, o.Config)
	d, isRepair := m.depth[k]
	if isRepair {
		m.extra++
	}
	if err := m.scootModel.Learn(o); err != nil {
		return err
	}
	if o.Class != search.ClassOOM || d >= headroomDepth {
		return nil
	}
	if r, ok := m.repair(o.Config, m.advice(o)); ok {
		rk := search.ConfigKey(m.sp, r)
		if _, seen := m.depth[rk]; !seen {
			m.depth[rk] = d + 1
			m.repairs = append(m.repairs, r)
		}
	}
	return nil
}

// advice reads o's OOM message; when PyTorch reported nothing free, its
// shortfall is estimated from what the family's other OOMs showed sits
// outside the fraction (a family-1 seed of the widened family otherwise
// repaired 0.95 → 0.9 → 0.85 → 0.8, three OOMs, where the estimate goes
// to 0.8 at once).
func (m *headroomModel) advice(o search.Observation) oomAdvice {
	a := readOOM(o.Message)
	if !hasFraction(o.Config) {
		return a
	}
	f, fam := fractionOf(o.Config), m.fam.key(m.sp.WithTargetEngine(o.Config))
	if g, ok := a.outsideGiB(f); ok {
		m.outside[fam] = max(m.outside[fam], g)
		return a
	}
	if g, ok := m.outside[fam]; ok {
		return a.estimated(f, g)
	}
	return a
}

// repair is c at the memory fraction that advice a says fits: the
// highest of the knob's values the shortfall leaves when the fraction
// must come down, the lowest above c's when it must go up — the nearest
// that is within the space's rules and that the memory model, which
// holds every OOM so far, does not rule out; ok is false when there is
// none.
func (m *headroomModel) repair(c space.Config, a oomAdvice) (space.Config, bool) {
	p, ok := m.sp.Param(fractionKnob)
	if !ok || a.dir == 0 || !hasFraction(c) {
		return nil, false
	}
	vals, ok := p.Grid()
	if !ok {
		return nil, false
	}
	for _, v := range repairFractions(vals, fractionOf(c), a) {
		r := c.Clone()
		r[fractionKnob] = v
		if m.sp.Check(m.sp.WithTargetEngine(r)) == nil && !m.told(r) && !m.ruledOut(r) {
			return r, true
		}
	}
	return nil, false
}

// repairFractions are the values of vals that advice a for an OOM at
// fraction at does not rule out (fractionOut), on the side the advice
// points to, nearest first.
func repairFractions(vals []any, at float64, a oomAdvice) []any {
	type val struct {
		v    any
		dist float64
	}
	var ok []val
	for _, v := range vals {
		x, isNum := space.Number(v, false)
		if !isNum || a.dir == 0 || fractionOut(a, at, x) || (a.dir < 0) != (x < at) {
			continue
		}
		ok = append(ok, val{v, math.Abs(x - at)})
	}
	sort.SliceStable(ok, func(i, j int) bool { return ok[i].dist < ok[j].dist })
	out := make([]any, len(ok))
	for i, v := range ok {
		out[i] = v.v
	}
	return out
}
