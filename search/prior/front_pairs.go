package prior

import (
	"math"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// What one knob's change does in this reality, learnt from measured pairs.
// A front move estimates a neighbour by the prior's predicted ratio to a
// measured member (localEstimate); where the reality differs from the
// prior's cards that ratio is wrong knob by knob: on a B200 with H200
// cards, mem_fraction 0.7 and 0.8 measure the same (the larger memory
// holds every batch either way) while the prior predicts 0.7 well below,
// and the larger prefill chunk the prior calls worse measures better.
// Every pair of measured configs that differ in one knob tells how far
// the prior's ratio of the two misses the measured one; a move along the
// same change (knob, from, to) elsewhere on the front is corrected by the
// mean miss, shrunk toward zero while few pairs back it (pairShrink pairs
// are worth half). A change measured to make no difference then
// estimates its neighbour at the member's own values: it adds no
// hypervolume and the prior stops proposing reality twins.
const pairShrink = 1.0

// transition is one knob's change of value.
type transition struct{ knob, from, to string }

// pairFix is the summed log miss of the prior's ratio over n pairs, per
// objective.
type pairFix struct {
	sum []float64
	n   int
}

// oneKnob is the knob a and b differ in and its two values; false when
// they differ in none or in more than one (a knob present in one only
// counts as a difference).
func oneKnob(a, b space.Config) (transition, bool) {
	ts, n := knobDiff(a, b)
	if n != 1 || len(ts) != 1 {
		return transition{}, false
	}
	return ts[0], true
}

// knobDiff is how many knobs a and b differ in (a knob present in one
// only counts) and the changes of those present in both, a to b.
func knobDiff(a, b space.Config) ([]transition, int) {
	var ts []transition
	for k, va := range a {
		if vb, ok := b[k]; ok && !sameValue(va, vb) {
			ts = append(ts, transition{k, space.FormatValue(va), space.FormatValue(vb)})
		}
	}
	return ts, knobDistance(a, b)
}

// knobDistance is how many knobs a and b differ in, a knob present in
// one only counting: knobDiff's count, without formatting the changes.
func knobDistance(a, b space.Config) int {
	n := 0
	for k, va := range a {
		if vb, ok := b[k]; !ok || !sameValue(va, vb) {
			n++
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			n++
		}
	}
	return n
}

// pairMiss is, per objective, log(measured b / measured a) − log(predicted
// b / predicted a); false when a value is not positive.
func pairMiss(ma, mb, pa, pb []float64) ([]float64, bool) {
	if len(ma) == 0 || len(mb) != len(ma) || len(pa) != len(ma) || len(pb) != len(ma) {
		return nil, false
	}
	out := make([]float64, len(ma))
	for i := range ma {
		if !(ma[i] > 0 && mb[i] > 0 && pa[i] > 0 && pb[i] > 0) || math.IsInf(pa[i], 0) || math.IsInf(pb[i], 0) {
			return nil, false
		}
		out[i] = math.Log(mb[i]/ma[i]) - math.Log(pb[i]/pa[i])
	}
	return out, true
}

// learnPairs is the mean miss per transition over every measured pair
// one knob apart, each pair counted in both directions; pred gives two
// configs' predictions of one kind (false: none to compare).
func learnPairs(ms []measuredMean, pred func(a, b space.Config) (pa, pb []float64, ok bool)) map[transition]*pairFix {
	out := map[transition]*pairFix{}
	add := func(t transition, d []float64, sign float64) {
		f := out[t]
		if f == nil {
			f = &pairFix{sum: make([]float64, len(d))}
			out[t] = f
		}
		for i := range d {
			f.sum[i] += sign * d[i]
		}
		f.n++
	}
	for i := range ms {
		for j := i + 1; j < len(ms); j++ {
			t, ok := oneKnob(ms[i].cfg, ms[j].cfg)
			if !ok {
				continue
			}
			pa, pb, ok := pred(ms[i].cfg, ms[j].cfg)
			if !ok {
				continue
			}
			if d, ok := pairMiss(ms[i].values, ms[j].values, pa, pb); ok {
				add(t, d, 1)
				add(transition{t.knob, t.to, t.from}, d, -1)
			}
		}
	}
	return out
}

// corrected is est moved by the learnt miss of the transition, shrunk by
// pairShrink; est itself when no pair measured it.
func (f *pairFix) corrected(est []float64) []float64 {
	if f == nil || f.n == 0 {
		return est
	}
	out := make([]float64, len(est))
	w := float64(f.n) / (float64(f.n) + pairShrink)
	for i := range est {
		out[i] = est[i] * math.Exp(w*f.sum[i]/float64(f.n))
	}
	return out
}

// pairPreds are a and b's full predictions when the prior predicts both
// feasible, else their screening ones when both have one (as localOf).
func (f front) pairPreds(a, b space.Config) ([]float64, []float64, bool) {
	ca, cb := f.st.tab.cands[search.ConfigKey(f.st.sp, a)], f.st.tab.cands[search.ConfigKey(f.st.sp, b)]
	switch {
	case ca == nil || cb == nil:
		return nil, nil, false
	case ca.feasible && cb.feasible:
		return ca.values, cb.values, true
	case ca.fastOK && cb.fastOK:
		return ca.fast, cb.fast, true
	}
	return nil, nil, false
}

// pairFixes are the transitions learnt from the study's measured pairs.
func (f front) pairFixes(ms []measuredMean) map[transition]*pairFix {
	return learnPairs(ms, f.pairPreds)
}

// sameValue is FormatValue(a) == FormatValue(b), the knobs' notion of an
// equal value, without formatting the plainly equal values that most
// knobs of two configs hold: the front's estimates compare every open
// candidate with every measured config on each proposal, and formatting
// each value was most of a proposal's own cost (issue 49).
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x == y
		}
	case bool:
		if y, ok := b.(bool); ok {
			return x == y
		}
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
	case float64:
		// -0 equals 0 but formats as "-0"; NaN formats as itself.
		if y, ok := b.(float64); ok && x == y && math.Signbit(x) == math.Signbit(y) {
			return true
		}
	}
	return space.FormatValue(a) == space.FormatValue(b)
}
