package search

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// scaled is series s with every value times f: one trial's noise draw
// scales all of its checkpoints alike.
func scaled(s []Checkpoint, f float64) []Checkpoint {
	out := make([]Checkpoint, len(s))
	for i, c := range s {
		out[i] = c
		out[i].Values = []float64{c.Values[0] * f}
	}
	return out
}

// Series from the lab's traces (GLM-5.2, total tok/s, as measured):
var (
	// h200-extreme seed 11: the optimum (256 running) and a 512-batch
	// incumbent 6.4% below it on a +12% draw, whose crest at 40% stands
	// above its own final.
	extremeOptimum   = series("p", 6411, 12821, 9640, 12853, 16066, 12865, 15009, 12982, 14602)
	extremeIncumbent = series("p", 4663, 9327, 13990, 18654, 11539, 13824, 16128, 18432, 15952)
	// h200-is-b200 seed 19: two 512-batch configs in step, the trial on a
	// draw 13% below the incumbent's.
	b200Trial     = series("p", 8856, 17712, 26569, 35425, 44281, 27000, 31500, 35999, 40500)
	b200Incumbent = series("p", 10201, 20402, 30603, 40804, 51005, 30945, 36094, 41251, 46407)
	// the widened family's seed 15: a 64-batch config, steady, a third
	// below the incumbent.
	steady64 = series("p", 4522, 4522, 5426, 5168, 5300, 5300, 5300, 5300, 5300)
)

// prunedAt is the first step at which ShouldPruneSeries stops series
// against the incumbents (0: never), and why.
func prunedAt(r PruneRule, s []Checkpoint, objs []space.Objective, incs ...[]Checkpoint) (int, string) {
	for i := range s {
		if prune, why := r.ShouldPruneSeries(s[:i+1], incs, objs); prune {
			return s[i].Step, why
		}
	}
	return 0, ""
}

func TestShouldPruneSeries(t *testing.T) {
	r, one := DefaultPruneRule(), []space.Objective{maxObj("tps")}
	half := series("p", 2090, 4180, 4198, 4198, 5247, 5247, 5247, 5247, 5247)
	cases := []struct {
		name  string
		trial []Checkpoint
		incs  [][]Checkpoint
		want  int // the step it is pruned at; 0: never
	}{
		{"family seed 15: the optimum through its trough", waveOptimum, [][]Checkpoint{waveIncumbent}, 0},
		// The draws of main's trajectory (trial 10: 0.916, the incumbent
		// 0.979): on the envelopes alone it is 14.5% behind at 70%,
		// beyond the step's 13%, though it ends 6% ahead.
		{"family seed 15 on its draws", scaled(waveOptimum, 0.916), [][]Checkpoint{scaled(waveIncumbent, 0.979)}, 0},
		// Its lead at 20% is before the judged steps, and the 25% the
		// ratio ranges over 30-40% does not cover the 31% the 512 batch's
		// crest overstates: a limit of the rule, kept so a 256 batch far
		// behind a 512 batch still in its first wave is pruned (below).
		{"h200-extreme seed 11: a 256 batch against a 512 batch's early crest", extremeOptimum, [][]Checkpoint{extremeIncumbent}, 4},
		// h200-is-b200 seed 14: a 256 batch (final 36,569) against a 512
		// batch (58,177) whose first wave finishes in one burst to 50%:
		// the 256 batch leads at 20%, and is behind by a third from 40%.
		{"a 256 batch far behind a 512 batch's first wave", series("p", 14405, 28810, 21690, 28920, 36150, 28957, 33783, 29255, 32912),
			[][]Checkpoint{series("p", 11534, 23068, 34602, 46137, 57671, 34927, 40739, 46559, 52379)}, 4},
		{"trials in step: their ratio decides (13.2% at 70%, on the crests at 50%)", b200Trial, [][]Checkpoint{b200Incumbent}, 7},
		{"a steady trial at half pace against a wave", half, [][]Checkpoint{waveIncumbent}, 3},
		{"a steady trial a third behind a wave's crests", steady64, [][]Checkpoint{waveIncumbent}, 3},
		{"one of two incumbents suffices", steady64, [][]Checkpoint{series("p", 1, 1, 1), waveIncumbent}, 3},
		{"no incumbent", half, nil, 0},
	}
	for _, c := range cases {
		got, why := prunedAt(r, c.trial, one, c.incs...)
		if got != c.want {
			t.Errorf("%s: pruned at step %d (%s), want %d", c.name, got, why, c.want)
		}
		if got != 0 && !strings.Contains(why, "0% of the requests") {
			t.Errorf("%s: reason %q does not say when", c.name, why)
		}
	}
	// The step rule alone prunes the first two: the cases the series
	// rule changes.
	for _, c := range cases[:2] {
		if !r.Spared(c.trial, c.incs, one) {
			t.Errorf("%s: the step rule did not prune it (the fixture is wrong)", c.name)
		}
	}
}

func TestShouldPruneSeriesEdges(t *testing.T) {
	r := DefaultPruneRule()
	one := []space.Objective{maxObj("tps")}
	two := []space.Objective{maxObj("tps"), minObj("tpot")}
	cp := func(step int, viol float64, v ...float64) Checkpoint {
		return Checkpoint{Profile: "p", Step: step, Values: v, Violation: viol}
	}
	inc := []Checkpoint{cp(1, 0, 100, 10), cp(2, 0, 100, 10), cp(3, 0, 100, 10), cp(4, 0, 100, 10)}
	cases := []struct {
		name   string
		series []Checkpoint
		incs   [][]Checkpoint
		objs   []space.Objective
		want   bool
	}{
		{"no checkpoints", nil, [][]Checkpoint{inc}, two, false},
		{"too early", []Checkpoint{cp(1, 0, 1, 99), cp(2, 0, 1, 99)}, [][]Checkpoint{inc}, two, false},
		{"an SLO missed by far", []Checkpoint{cp(3, 0.5, 100, 10)}, nil, two, true},
		{"worse on both, steadily", []Checkpoint{cp(2, 0, 50, 20), cp(3, 0, 50, 20)}, [][]Checkpoint{inc}, two, true},
		{"a trade-off survives", []Checkpoint{cp(2, 0, 50, 5), cp(3, 0, 50, 5)}, [][]Checkpoint{inc}, two, false},
		// TPOT moved from 2× to 1.3× the incumbent's: its margin widens to
		// that range (35%), so 1.3× is not clearly worse at 40% (margin
		// 24%), while throughput, steadily half, has no range to widen.
		{"each objective's own mismatch", []Checkpoint{cp(3, 0, 50, 20), cp(4, 0, 50, 13)}, [][]Checkpoint{inc}, two, false},
		{"the same, with TPOT steady", []Checkpoint{cp(3, 0, 50, 13), cp(4, 0, 50, 13)}, [][]Checkpoint{inc}, two, true},
		{"an infeasible incumbent is ignored", []Checkpoint{cp(3, 0, 10)}, [][]Checkpoint{{cp(3, 0.5, 100)}}, one, false},
		{"another profile's checkpoints do not count", []Checkpoint{cp(3, 0, 10)}, [][]Checkpoint{{{Profile: "q", Step: 3, Values: []float64{100}}}}, one, false},
	}
	for _, c := range cases {
		if got, why := r.ShouldPruneSeries(c.series, c.incs, c.objs); got != c.want {
			t.Errorf("%s: prune = %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

func TestSpared(t *testing.T) {
	r, one := DefaultPruneRule(), []space.Objective{maxObj("tps")}
	cases := []struct {
		name  string
		trial []Checkpoint
		incs  [][]Checkpoint
		want  bool
	}{
		{"the step rule prunes it at its trough", waveOptimum, [][]Checkpoint{waveIncumbent}, true},
		{"never clearly behind at a step", b200Incumbent, [][]Checkpoint{b200Trial}, false},
		{"behind only before the first judged step", series("p", 1, 1, 100, 100), [][]Checkpoint{series("p", 100, 100, 100, 100)}, false},
		{"no incumbent", waveOptimum, nil, false},
		{"an incumbent without the steps", waveOptimum, [][]Checkpoint{series("p", 9e9)}, false},
	}
	for _, c := range cases {
		if got := r.Spared(c.trial, c.incs, one); got != c.want {
			t.Errorf("%s: Spared = %v, want %v", c.name, got, c.want)
		}
	}
}
