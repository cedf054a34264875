package search

import (
	"math"

	"github.com/servetune/servetune/space"
)

// A checkpoint's figures are over the requests finished so far, timed at
// the last one's end: the work of the requests still running is not in
// them. When a config's running batch is large its requests finish in
// waves, so a checkpoint that falls at a wave's end counts almost all the
// work done, and the next one, a few requests into the following wave,
// counts none of that wave's work while its clock has run on: the widened
// family's seed 15 optimum (512 running) reads 9,585 tok/s at 40% of its
// requests, 6,824 at 50% and 12,026 at the end. Two trials' waves are out
// of phase, so the same step is a trough for one and a crest for the
// other, and a trough is the checkpoints' own variance, not noise: more
// requests do not average it away and no noise margin covers it.
//
// A throughput counted at a finish is a lower bound of the work done up
// to then, and the work done only grows, so the best reading so far is
// the tightest bound the series has: its upper envelope. Judging both the
// trial and the incumbent on their envelopes at the same step fills the
// troughs and leaves the crests, and a steady trial's envelope is its
// series. Only maximised objectives have this direction; a latency
// checkpoint is judged as it reads.

// Envelope is series' checkpoint at profile and step with each maximised
// objective replaced by its best value at that profile over steps up to
// step (its running maximum); minimised objectives and the violation are
// the step's own. ok is false when series has no checkpoint there.
func Envelope(series []Checkpoint, profile string, step int, objs []space.Objective) (Checkpoint, bool) {
	at, ok := stepOf(series, profile, step)
	if !ok || len(at.Values) != len(objs) {
		return at, ok
	}
	out := at
	out.Values = append([]float64(nil), at.Values...)
	for _, c := range series {
		if c.Profile != profile || c.Step > step || len(c.Values) != len(objs) {
			continue
		}
		for i, o := range objs {
			if o.Direction == space.Maximize && !math.IsNaN(c.Values[i]) && c.Values[i] > out.Values[i] {
				out.Values[i] = c.Values[i]
			}
		}
	}
	return out, true
}

// stepOf is the checkpoint of series at a profile and step, if any.
func stepOf(series []Checkpoint, profile string, step int) (Checkpoint, bool) {
	for _, c := range series {
		if c.Profile == profile && c.Step == step {
			return c, true
		}
	}
	return Checkpoint{}, false
}
