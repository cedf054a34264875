package search

import (
	"testing"

	"github.com/servetune/servetune/space"
)

func TestBurstEnd(t *testing.T) {
	one := []space.Objective{maxObj("tps")}
	two := []space.Objective{maxObj("tps"), minObj("tpot")}
	lat := []space.Objective{minObj("tpot")}
	cases := []struct {
		name string
		s    []Checkpoint
		objs []space.Objective
		want int
	}{
		{"a 512 batch's burst to 40%", extremeIncumbent, one, 4},
		{"a 256 batch's burst to 20%", extremeOptimum, one, 2},
		{"h200-is-b200's 512 batch to 50%", b200Incumbent, one, 5},
		{"steady: no burst", steady64, one, 0},
		{"within 3% of k times the first", series("p", 100, 202, 297, 150), one, 3},
		{"4% off ends it", series("p", 100, 208, 300), one, 0},
		{"one checkpoint", series("p", 100), one, 0},
		{"no first step", []Checkpoint{{Profile: "p", Step: 2, Values: []float64{200}}}, one, 0},
		{"another profile", series("q", 100, 200, 300), one, 0},
		{"minimised objectives are not read", []Checkpoint{{Profile: "p", Step: 1, Values: []float64{100, 5}}, {Profile: "p", Step: 2, Values: []float64{200, 9}}}, two, 2},
		{"no maximised objective", series("p", 100, 200, 300), lat, 0},
		{"a zero first reading", series("p", 0, 0, 0), one, 0},
	}
	for _, c := range cases {
		if got := burstEnd(c.s, "p", c.objs); got != c.want {
			t.Errorf("%s: burst ends at %d, want %d", c.name, got, c.want)
		}
	}
}

func TestOutOfStepBurst(t *testing.T) {
	one := []space.Objective{maxObj("tps")}
	cases := []struct {
		name       string
		trial, inc []Checkpoint
		step, want int
	}{
		{"a 256 batch against a 512 batch's burst", extremeOptimum[:3], extremeIncumbent, 3, 4},
		{"the same, later", extremeOptimum[:6], extremeIncumbent, 6, 4},
		{"two 512 batches in step, mid-burst", b200Trial[:3], b200Incumbent, 3, 0},
		{"two 512 batches in step, after it", b200Trial[:7], b200Incumbent, 7, 0},
		{"a steady incumbent has no burst", extremeOptimum[:4], steady64, 4, 0},
		{"a steady trial against a burst", steady64[:3], extremeIncumbent, 3, 4},
	}
	for _, c := range cases {
		if got := outOfStepBurst(c.trial, c.inc, c.step, "p", one); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestEnvelopeAfter(t *testing.T) {
	one := []space.Objective{maxObj("tps")}
	got, ok := envelopeAfter(extremeIncumbent, "p", 6, 4, one)
	if !ok || got.Values[0] != 13824 {
		t.Fatalf("after the burst: %v %v, want 13824 (the crest at 40%% left out)", got.Values, ok)
	}
	if got, _ := Envelope(extremeIncumbent, "p", 6, one); got.Values[0] != 18654 {
		t.Fatalf("Envelope keeps the crest: %v", got.Values)
	}
	if _, ok := envelopeAfter(extremeIncumbent, "p", 12, 4, one); ok {
		t.Fatal("a step the series does not have")
	}
}
