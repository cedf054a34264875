package search

import (
	"fmt"
	"math"
	"slices"

	"github.com/servetune/servetune/space"
)

// A large batch finishes its requests in waves, so its checkpoints rise
// and fall with them (Envelope). Two trials' waves are out of phase when
// their batches differ: the same step is a crest for one and a trough for
// the other, and their ratio swings from step to step although neither
// has changed. Trials with the same batch shape keep a steady ratio
// (h200-is-b200: every 512-batch config rises to 50% and troughs at 60%
// in step), and then the step's ratio is the evidence. So the margin a
// pair is judged with is widened, per objective, to the range its
// envelopes' ratio has covered so far: the pair's own measured wave
// mismatch, near zero for trials of one shape. A per-trial noise factor
// scales every checkpoint of a trial alike, so it is not in the range;
// the noise margin covers it.

// ShouldPruneSeries judges a running trial from its checkpoints so far,
// the last of which is the step to judge, against each incumbent's
// checkpoints: on the series' envelopes, with each pair's margin on each
// objective the larger of the rule's and the pair's wave mismatch there.
// It returns the verdict and why.
func (r PruneRule) ShouldPruneSeries(series []Checkpoint, incumbents [][]Checkpoint, objs []space.Objective) (bool, string) {
	if len(series) == 0 {
		return false, ""
	}
	now := series[len(series)-1]
	cur, _ := Envelope(series, now.Profile, now.Step, objs)
	if !r.judgeable(cur, objs) {
		return false, ""
	}
	m := r.margin(cur.Step)
	if cur.Violation > m {
		return true, violates(cur)
	}
	floor := slices.Repeat([]float64{m}, len(objs))
	for _, s := range incumbents {
		inc, ok := Envelope(s, cur.Profile, cur.Step, objs)
		if !ok || !leads(inc, objs) {
			continue
		}
		// The pair's margins below are at least m, so a trial not worse
		// than the incumbent by m on every objective is not worse by
		// them: skip the mismatch, the costly part, for the incumbents
		// that cannot prune it (most of a long study's front).
		if !worseEach(cur.Values, inc.Values, objs, floor) {
			continue
		}
		w := r.mismatch(series, s, cur.Profile, cur.Step, objs)
		for i := range w {
			w[i] = max(w[i], m)
		}
		if worseEach(cur.Values, inc.Values, objs, w) {
			return true, fmt.Sprintf("worse than an incumbent by more than %.0f%% on every objective at %d0%% of the requests", slices.Min(w)*100, cur.Step)
		}
	}
	return false, ""
}

// mismatch is, per objective, how far the ratio of a's and b's envelopes
// has ranged over the judged steps up to step, as a relative margin (1 −
// its least over its most). Earlier steps fall inside the first wave of
// a large batch, whose requests finish in one burst, so its readings
// there rise in proportion to the step and say little about its rate:
// counted, they would spare a 256 batch a third behind a 512 batch
// (h200-is-b200 seed 14) and a steady trial behind any wave-shaped
// incumbent.
func (r PruneRule) mismatch(a, b []Checkpoint, profile string, step int, objs []space.Objective) []float64 {
	out := make([]float64, len(objs))
	for i := range objs {
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := r.MinStep; k <= step; k++ {
			ea, okA := Envelope(a, profile, k, objs)
			eb, okB := Envelope(b, profile, k, objs)
			if !okA || !okB || len(ea.Values) != len(objs) || len(eb.Values) != len(objs) {
				continue
			}
			if x, y := ea.Values[i], eb.Values[i]; x > 0 && y > 0 {
				lr := math.Log(x / y)
				lo, hi = min(lo, lr), max(hi, lr)
			}
		}
		if hi > lo {
			out[i] = 1 - math.Exp(lo-hi)
		}
	}
	return out
}

// worseEach reports whether a is worse than b on every objective by more
// than that objective's relative margin.
func worseEach(a, b []float64, objs []space.Objective, ms []float64) bool {
	for i, o := range objs {
		if !clearlyWorse(a[i:i+1], b[i:i+1], []space.Objective{o}, ms[i]) {
			return false
		}
	}
	return true
}

// Spared reports whether a trial that ran to the end would have been
// pruned by the rule reading each step as it stands — its checkpoint
// against the incumbents' at the same step, the rule before envelopes —
// so it finished only because the wave rule spared it. Such a trial is a
// near-twin as often as a wave-shaped winner, and its one measurement is
// not yet evidence enough to be reported (ConfirmState, Measured.Spared).
func (r PruneRule) Spared(series []Checkpoint, incumbents [][]Checkpoint, objs []space.Objective) bool {
	for _, c := range series {
		var at []Checkpoint
		for _, s := range incumbents {
			if a, ok := stepOf(s, c.Profile, c.Step); ok {
				at = append(at, a)
			}
		}
		if prune, _ := r.ShouldPrune(c, at, objs); prune {
			return true
		}
	}
	return false
}
