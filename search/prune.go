package search

import (
	"fmt"
	"math"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// Checkpoint is a trial's objective values and SLO violation partway
// through one profile's benchmark: at Step tenths of its requests.
type Checkpoint struct {
	Profile   string    `json:"profile"`
	Step      int       `json:"step"`
	Values    []float64 `json:"values"`
	Violation float64   `json:"violation"`
	// Projected, on the checkpoint where a trial was pruned, estimates its
	// final objective values: the incumbent's final values scaled by the
	// ratio of the two trials at this checkpoint. The sampler learns from
	// this estimate instead of from a penalty, so a false prune costs one
	// trial, not a region.
	Projected []float64 `json:"projected,omitempty"`
}

// Project estimates cur's final values from an incumbent's checkpoint at
// the same step and its final values.
func Project(cur, inc Checkpoint, incFinal []float64) []float64 {
	out := make([]float64, len(cur.Values))
	for i := range out {
		out[i] = math.NaN()
		if i < len(inc.Values) && i < len(incFinal) && inc.Values[i] != 0 {
			out[i] = cur.Values[i] * incFinal[i] / inc.Values[i]
		}
	}
	return out
}

// PruneRule decides whether a running trial can still win. It compares a
// trial with the incumbents at the same checkpoint of the same profile —
// never with their final values — because a benchmark's partial figures
// are biased (throughput ramps up, queues build), and the bias is the
// same for every trial at the same step. A trial is pruned when, with a
// margin for noise that shrinks as more requests finish,
//
//   - single objective: it is worse than the best trial was at this step;
//   - several objectives: some front member was better at this step on
//     every objective;
//   - any: it already violates an SLO by more than the margin.
//
// The margin at step s of n is Margin·√((n−s)/s): at 30% of the requests
// it is 1.53·Margin, at 50% Margin, at 90% 0.33·Margin.
type PruneRule struct {
	// MinStep is the first step at which a trial may be pruned.
	MinStep int
	// Margin is the relative margin at half the requests.
	Margin float64
	// Steps is how many parts a benchmark is cut into (bench.Checkpoints).
	Steps int
}

// DefaultPruneRule is the rule studies use unless told otherwise. Its
// margin was chosen with `servetune lab --prune-margin 0.1 --prune-margin
// 0.2`: at 0.1, 6.5% of prunes on the GLM-5.2 landscape were false and the
// final best lost 10%; at 0.2, 3.4% and none lost, for about half the
// GPU-seconds either way (docs/benchmarks.md).
func DefaultPruneRule() PruneRule {
	return PruneRule{MinStep: 3, Margin: 0.20, Steps: bench.Checkpoints}
}

// margin is the relative noise margin at a step.
func (r PruneRule) margin(step int) float64 {
	return r.Margin * math.Sqrt(float64(r.Steps-step)/float64(step))
}

// ShouldPrune reports whether cur should stop, and why. incumbents are the
// leading trials' checkpoints at the same profile and step (the best trial,
// or the Pareto front); infeasible incumbents are ignored.
func (r PruneRule) ShouldPrune(cur Checkpoint, incumbents []Checkpoint, objs []space.Objective) (bool, string) {
	if !r.judgeable(cur, objs) {
		return false, ""
	}
	m := r.margin(cur.Step)
	if cur.Violation > m {
		return true, violates(cur)
	}
	for _, inc := range incumbents {
		if !leads(inc, objs) {
			continue
		}
		if clearlyWorse(cur.Values, inc.Values, objs, m) {
			return true, fmt.Sprintf("worse than an incumbent by more than %.0f%% on every objective at %d0%% of the requests", m*100, cur.Step)
		}
	}
	return false, ""
}

// judgeable reports whether the rule judges c at all: within its steps,
// with a usable value on every objective.
func (r PruneRule) judgeable(c Checkpoint, objs []space.Objective) bool {
	return c.Step >= r.MinStep && c.Step < r.Steps && usable(c, objs)
}

// leads reports whether an incumbent's checkpoint can be judged against:
// feasible, with a usable value on every objective.
func leads(c Checkpoint, objs []space.Objective) bool {
	return c.Violation <= 0 && usable(c, objs)
}

func usable(c Checkpoint, objs []space.Objective) bool {
	return len(c.Values) == len(objs) && !HasNaN(c.Values)
}

// violates says why a checkpoint's SLO violation stops its trial.
func violates(c Checkpoint) string {
	return fmt.Sprintf("violates an SLO by %.0f%% at %d0%% of the requests", c.Violation*100, c.Step)
}

// clearlyWorse reports whether a is worse than b by more than the relative
// margin m on every objective.
func clearlyWorse(a, b []float64, objs []space.Objective, m float64) bool {
	for i, o := range objs {
		scale := math.Max(math.Abs(b[i]), 1e-12)
		gap := (b[i] - a[i]) / scale // > 0 when a is worse, for maximise
		if o.Direction == space.Minimize {
			gap = -gap
		}
		if gap <= m {
			return false
		}
	}
	return true
}
