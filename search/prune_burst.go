package search

import (
	"math"

	"github.com/servetune/servetune/space"
)

// A large batch's first wave finishes in one burst: its requests end
// together, so its checkpoints up to the burst's end read k times the
// first (k the step), and the burst's last reading is the work of a whole
// wave over the time of one — a crest that can stand well above the
// trial's final rate (h200-extreme seed 11: a 512 batch reads 18,654 tok/s
// at 40% and ends at 15,952). Judged against that crest, or against an
// envelope that keeps it, a 256 batch that ends 6% ahead is 31% behind at
// 40% and pruned. So an incumbent is not judged against at the steps of
// its first burst, and after it its envelope starts afresh: its readings
// once the waves have begun are its rate. A trial far behind is still
// pruned, a few steps later (h200-is-b200 seed 14's 256 batch a third
// behind a 512 batch: at 80% instead of 40%).

// burstTol is how close (relative) a reading must be to k times the first
// to count as the first burst's.
const burstTol = 0.03

// burstEnd is the last step of series' first burst at profile: the
// largest k ≥ 2 such that every maximised objective reads within burstTol
// of j times its first reading at every step j ≤ k; 0 when there is no
// burst (a steady series, one with no maximised objective, or too few
// checkpoints).
func burstEnd(series []Checkpoint, profile string, objs []space.Objective) int {
	first, ok := stepOf(series, profile, 1)
	if !ok || len(first.Values) != len(objs) || !hasMaximised(objs) {
		return 0
	}
	end := 0
	for k := 2; ; k++ {
		c, ok := stepOf(series, profile, k)
		if !ok || !proportional(first, c, k, objs) {
			break
		}
		end = k
	}
	return end
}

// proportional reports whether c reads k times first on every maximised
// objective, within burstTol.
func proportional(first, c Checkpoint, k int, objs []space.Objective) bool {
	if len(c.Values) != len(objs) {
		return false
	}
	for i, o := range objs {
		if o.Direction != space.Maximize {
			continue
		}
		want := float64(k) * first.Values[i]
		if !(want > 0) || math.Abs(c.Values[i]/want-1) > burstTol {
			return false
		}
	}
	return true
}

func hasMaximised(objs []space.Objective) bool {
	for _, o := range objs {
		if o.Direction == space.Maximize {
			return true
		}
	}
	return false
}

// envelopeAfter is Envelope over the steps after `after` only (the step's
// own reading always counts).
func envelopeAfter(series []Checkpoint, profile string, step, after int, objs []space.Objective) (Checkpoint, bool) {
	var tail []Checkpoint
	for _, c := range series {
		if c.Profile != profile || c.Step > after {
			tail = append(tail, c)
		}
	}
	return Envelope(tail, profile, step, objs)
}

// outOfStepBurst is the end of the incumbent's first burst when the
// trial's waves are out of step with it (its own burst, so far, ended at
// another step), else 0. Two trials whose first bursts end together have
// crests that compare (h200-is-b200's 512 batches, in step to 50%); a
// trial's own crest is kept either way, since its envelope is a lower
// bound of its work (the widened family's seed 15 optimum, whose 512
// batch crests at 40% and ends 25% above its incumbent).
func outOfStepBurst(trial, incumbent []Checkpoint, step int, profile string, objs []space.Objective) int {
	b := burstEnd(incumbent, profile, objs)
	if b == 0 || burstEnd(trial, profile, objs) == min(b, step) {
		return 0
	}
	return b
}
