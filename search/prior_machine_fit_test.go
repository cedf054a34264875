package search

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestFitChoice(t *testing.T) {
	const gain = 0.01
	cases := []struct {
		name string
		sse  []float64
		cur  int
		want int
	}{
		{"the plan's machine fits best: stay", []float64{0.02, 0.05, 0.09}, -1, 0},
		{"a larger machine fits far better: move", []float64{0.46, 0.02, 0.003}, -1, 2},
		{"better by less than the gain: stay on the plan's", []float64{0.030, 0.025, 0.028}, -1, 0},
		{"on a larger machine, a nearer one barely better: stay", []float64{0.4, 0.012, 0.010}, 2, 2},
		{"on a larger machine, the plan's now far better: back", []float64{0.01, 0.2, 0.3}, 2, 0},
		{"a current machine out of range counts as the plan's", []float64{0.02, 0.015}, 7, 0},
		{"one machine only", []float64{0.5}, -1, 0},
	}
	for _, c := range cases {
		if got := fitChoice(c.sse, c.cur, gain); got != c.want {
			t.Errorf("%s: fitChoice(%v, %d) = %d, want %d", c.name, c.sse, c.cur, got, c.want)
		}
	}
}

func TestFitMachines(t *testing.T) {
	step := math.Exp(machineRungs * memStep)
	top := math.Exp(ladderHalf * memStep)
	ms := fitMachines([2]float64{1, 0.82})
	if len(ms) != ladderHalf/machineRungs+1 {
		t.Fatalf("%d machines from the card's memory, want %d (steps to the ladder's top)", len(ms), ladderHalf/machineRungs+1)
	}
	for i, m := range ms {
		if want := math.Pow(step, float64(i)); math.Abs(m[0]-want) > 1e-9 || m[1] != 0.82 {
			t.Errorf("machine %d = %v, want memory ×%.4f at the plan's overheads 0.82", i, m, want)
		}
	}
	if ms := fitMachines([2]float64{top, 1}); len(ms) != 1 {
		t.Errorf("from the ladder's top: %v, want only the plan's machine", ms)
	}
}

func TestFitDue(t *testing.T) {
	cases := []struct {
		contradicted bool
		mem          float64
		want         bool
	}{
		{false, 1.01, false}, // the card's plan stands: the card
		{true, 1.012, true},  // contradicted, the plan on the card's memory (B200 seed 11)
		{true, 1, true},
		{true, 0.97, false}, // the plan learnt less memory (h200-extreme): the card
	}
	for _, c := range cases {
		if got := fitDue(c.contradicted, c.mem); got != c.want {
			t.Errorf("fitDue(%v, %.3f) = %v, want %v", c.contradicted, c.mem, got, c.want)
		}
	}
}

// fitStudy is a prior sampler on machinePrior8 told three completed
// trials measuring measure(c), then contradicted the way B200 seed 11's
// plan is (one odd out-of-memory trial) while its mean stays on the
// card's memory.
func fitStudy(t *testing.T, measure func(space.Config) float64) *priorSampler {
	t.Helper()
	s := newPriorSampler(t, priorSpace(), machinePrior8{memoryPrior8{wall: 8}}).(*priorSampler)
	for _, ab := range [][2]int64{{6, 2}, {2, 1}, {4, 4}} {
		c := space.Config{"a": ab[0], "b": ab[1]}
		y := measure(c)
		if err := s.Tell(context.Background(), Observation{Config: c, State: Complete, Value: y, Values: []float64{y}}); err != nil {
			t.Fatal(err)
		}
	}
	s.memory.contradicted = true
	if mem, over := s.memory.scales(); rankMachine(true, mem, over) != cardMachine() || mem < 1 {
		t.Fatalf("the plan's machine ×%.3f / ×%.3f is not the card's", mem, over)
	}
	return s
}

// The plan's machine is the card's, but every measurement is twice the
// larger machine's prediction and the card's are off by factors from
// 1.5 to 6: the prior ranks on the larger machine, and its next pick is
// the best there (a=6 b=1), where the card's ranking picks a+b = 8.
func TestPriorRanksOnTheMachineTheMeasurementsFit(t *testing.T) {
	s := fitStudy(t, func(c space.Config) float64 {
		a, _ := c.Int("a")
		b, _ := c.Int("b")
		return 2 * (10 - float64(b) + 0.01*float64(a))
	})
	c, err := askOne(s)
	if err != nil {
		t.Fatal(err)
	}
	if s.machine[0] <= 1 {
		t.Errorf("the prior predicts on ×%v, want a machine with more memory", s.machine)
	}
	if a, _ := c.Int("a"); a != 6 || c["b"] != int64(1) {
		t.Errorf("the prior picked %s, want a=6 b=1 (the best on the machine the measurements fit)", c.Summary())
	}
}

// Measurements the card explains (a constant factor off its
// predictions) keep the prior on the card.
func TestPriorStaysOnTheCardTheMeasurementsFit(t *testing.T) {
	s := fitStudy(t, func(c space.Config) float64 {
		a, _ := c.Int("a")
		return 2 * (truth(c) + 0.01*float64(a))
	})
	if _, err := askOne(s); err != nil {
		t.Fatal(err)
	}
	if !s.onCard() {
		t.Errorf("the prior moved to ×%v on measurements its card explains", s.machine)
	}
}
