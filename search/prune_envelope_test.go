package search

import (
	"math"
	"slices"
	"testing"

	"github.com/servetune/servetune/space"
)

// series is one profile's checkpoints 1..n of one objective.
func series(profile string, vs ...float64) []Checkpoint {
	out := make([]Checkpoint, len(vs))
	for i, v := range vs {
		out[i] = Checkpoint{Profile: profile, Step: i + 1, Values: []float64{v}}
	}
	return out
}

// The widened family's seed 15 (GLM-5.2, total tok/s, noiseless): the
// optimum (512 running requests) and the incumbent it was pruned against
// at 50% (256 running).
var (
	waveOptimum   = series("p", 2396, 4793, 7189, 9585, 6824, 7215, 8418, 9621, 10823)
	waveIncumbent = series("p", 4180, 8360, 6297, 8396, 10495, 8408, 9810, 8524, 9590)
)

func TestEnvelope(t *testing.T) {
	one := []space.Objective{maxObj("tps")}
	two := []space.Objective{maxObj("tps"), minObj("tpot")}
	mixed := []Checkpoint{
		{Profile: "p", Step: 3, Values: []float64{90, 10}},
		{Profile: "q", Step: 4, Values: []float64{500, 1}},
		{Profile: "p", Step: 4, Values: []float64{60, 30}, Violation: 0.1},
		{Profile: "p", Step: 5, Values: []float64{70, 20}},
	}
	cases := []struct {
		name    string
		series  []Checkpoint
		profile string
		step    int
		objs    []space.Objective
		want    []float64
		ok      bool
	}{
		{"a crest is kept through the trough after it", waveOptimum, "p", 5, one, []float64{9585}, true},
		{"a rising series reads as it is", waveOptimum, "p", 9, one, []float64{10823}, true},
		{"the first step is its own envelope", waveOptimum, "p", 1, one, []float64{2396}, true},
		{"later steps do not count", waveIncumbent, "p", 3, one, []float64{8360}, true},
		{"no checkpoint at the step", waveOptimum[:4], "p", 5, one, nil, false},
		{"other profiles and minimised objectives stay out", mixed, "p", 4, two, []float64{90, 30}, true},
		{"a minimised objective is the step's own", mixed, "p", 5, two, []float64{90, 20}, true},
		{"a NaN now is not filled", series("p", 10, math.NaN()), "p", 2, one, []float64{math.NaN()}, true},
		{"an earlier NaN is skipped", series("p", math.NaN(), 5), "p", 2, one, []float64{5}, true},
	}
	for _, c := range cases {
		got, ok := Envelope(c.series, c.profile, c.step, c.objs)
		if ok != c.ok || (ok && !slices.EqualFunc(got.Values, c.want, sameFloat)) {
			t.Errorf("%s: Envelope = %v, %v; want %v, %v", c.name, got.Values, ok, c.want, c.ok)
		}
		if ok && (got.Step != c.step || got.Profile != c.profile) {
			t.Errorf("%s: checkpoint at %s/%d, want %s/%d", c.name, got.Profile, got.Step, c.profile, c.step)
		}
	}
	if got, _ := Envelope(mixed, "p", 4, two); got.Violation != 0.1 {
		t.Errorf("violation %v, want the step's own 0.1", got.Violation)
	}
	if mixed[3].Values[0] != 70 {
		t.Error("Envelope changed its input")
	}
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// The step rule prunes seed 15's optimum at its 50% trough; read through
// their envelopes the two trials are within the margin at every step, and
// a steady trial at half the incumbent's pace is still pruned at 30%.
func TestEnvelopesSpareAWaveTrough(t *testing.T) {
	r, objs := DefaultPruneRule(), []space.Objective{maxObj("tps")}
	if prune, _ := r.ShouldPrune(waveOptimum[4], []Checkpoint{waveIncumbent[4]}, objs); !prune {
		t.Fatal("the fixture: the step rule must prune the optimum at 50%")
	}
	for step := r.MinStep; step < r.Steps; step++ {
		cur, _ := Envelope(waveOptimum, "p", step, objs)
		inc, _ := Envelope(waveIncumbent, "p", step, objs)
		if prune, why := r.ShouldPrune(cur, []Checkpoint{inc}, objs); prune {
			t.Errorf("step %d: the optimum's envelope was pruned: %s", step, why)
		}
	}
	half := series("p", 2090, 4180, 4198, 4198, 5247, 5247, 5247, 5247, 5247)
	cur, _ := Envelope(half, "p", 3, objs)
	inc, _ := Envelope(waveIncumbent, "p", 3, objs)
	if prune, _ := r.ShouldPrune(cur, []Checkpoint{inc}, objs); !prune {
		t.Error("a steady trial at half the incumbent's pace survived 30%")
	}
}
