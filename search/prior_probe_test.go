package search

import (
	"context"
	"math/rand"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestProbeDue(t *testing.T) {
	due := probeSituation{done: 0, asked: probeAfter + 1, objectives: 1, incumbent: true}
	with := func(f func(*probeSituation)) probeSituation { s := due; f(&s); return s }
	cases := []struct {
		name string
		s    probeSituation
		want bool
	}{
		{"due", due, true},
		{"the second", with(func(s *probeSituation) { s.done, s.asked = maxProbes-1, probeAfter+5 }), true},
		{"before probeAfter trials", with(func(s *probeSituation) { s.asked = probeAfter }), false},
		{"no incumbent yet (nothing to beat)", with(func(s *probeSituation) { s.incumbent = false }), false},
		{"every probe spent", with(func(s *probeSituation) { s.done, s.asked = maxProbes, probeAfter+20 }), false},
		{"two objectives", with(func(s *probeSituation) { s.objectives = 2 }), false},
		{"the card is contradicted: the learned plan decides", with(func(s *probeSituation) { s.contradicted = true }), false},
		{"the prior's own turn", with(func(s *probeSituation) { s.priorTurn = true }), false},
	}
	for _, c := range cases {
		if got := probeDue(c.s); got != c.want {
			t.Errorf("%s: probeDue %v, want %v", c.name, got, c.want)
		}
	}
}

func TestBestProbe(t *testing.T) {
	cases := []struct {
		name string
		cs   []probeCand
		want int // -1: none
	}{
		{"none", nil, -1},
		{"too unlikely to start", []probeCand{{chance: probeChance / 2, gain: 0.5}}, -1},
		{"too small a gain", []probeCand{{chance: 0.9, gain: probeGain / 2}}, -1},
		{"a gain that is a loss", []probeCand{{chance: 0.9, gain: -0.2}}, -1},
		{"the larger chance × gain", []probeCand{{chance: 0.15, gain: 0.1}, {chance: 0.5, gain: 0.04}, {chance: 0.12, gain: 0.12}}, 1},
		{"a likely small gain loses to a fair large one", []probeCand{{chance: 0.9, gain: 0.031}, {chance: 0.3, gain: 0.2}}, 1},
		{"skips the unworthy", []probeCand{{chance: 0.05, gain: 1}, {chance: 0.2, gain: 0.05}}, 1},
	}
	for _, c := range cases {
		i, ok := bestProbe(c.cs)
		if (c.want < 0 && ok) || (c.want >= 0 && (!ok || i != c.want)) {
			t.Errorf("%s: bestProbe %d %v, want %d", c.name, i, ok, c.want)
		}
	}
}

// probePrior8 is memoryPrior8 that can predict on other machines: on one
// with mem times the card's memory and overhead times its overheads a
// config starts where (a+b)/wall × overhead ≤ mem.
type probePrior8 struct{ memoryPrior8 }

func (p probePrior8) PredictOn(_ context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	a, _ := c.Int("a")
	fits, _ := p.MemoryFits(c, mem, overhead)
	return []float64{truth(c) + 0.01*float64(a)}, fits
}

// probeStudy runs n trials of a study whose card starts a+b ≤ 8 on a
// machine that starts a+b ≤ wall, and returns the configs the prior
// proposed that its card refuses, in order, with whether each started.
func probeStudy(t *testing.T, wall float64, n int) (probed []space.Config, started []bool) {
	t.Helper()
	sp := priorSpace()
	s := newPriorSampler(t, sp, probePrior8{memoryPrior8{wall: 8}}).(*priorSampler)
	for range n {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		o := observe(c, wall)
		// Once the card is contradicted the prior predicts on the learned
		// plan's machine (prior_machine.go), and its own picks past the
		// card's edge are no probes.
		if p, ok := s.Explain(c); ok && p.Origin == "prior" && truth(c) > 8 && !s.memory.contradicted {
			probed, started = append(probed, c), append(started, o.State == Complete)
		}
		if err := s.Tell(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	return probed, started
}

// A card too cautious about memory (it refuses a+b = 9, which the machine
// starts): the prior spends a trial past its card's edge once it has
// probeAfter trials, the probe starts, and so reality contradicts the
// card. Without probes the prior never proposes a config its card refuses.
func TestProbeFindsTheRoomACautiousCardRefuses(t *testing.T) {
	probed, started := probeStudy(t, 9, probeAfter+8)
	if len(probed) == 0 {
		t.Fatal("the prior never proposed a config past its card's edge on a machine with more room")
	}
	if truth(probed[0]) != 9 || !started[0] {
		t.Errorf("first probe %s (a+b=%v, started %v): want a config just past the edge (a+b=9), which starts", probed[0].Summary(), truth(probed[0]), started[0])
	}
	if len(probed) > maxProbes {
		t.Errorf("%d probes, at most %d per study", len(probed), maxProbes)
	}
}

// Where the card overrates the machine (it starts a+b ≤ 8, the machine
// only a+b ≤ 6, as h200-extreme's 15% less memory) the trials at the
// card's edge run out of memory, the learned plan gives nothing past the
// edge a chance, and no probe runs.
func TestNoProbeOnAMachineWithLessRoomThanTheCard(t *testing.T) {
	if probed, _ := probeStudy(t, 6, probeAfter+10); len(probed) > 0 {
		t.Errorf("the prior probed %d configs past its card's edge on a machine with less room than the card: %s", len(probed), probed[0].Summary())
	}
}

// Where the card is right, the probes run out of memory: at most
// maxProbes trials are spent finding out.
func TestProbesAreBoundedWhereTheCardIsRight(t *testing.T) {
	probed, started := probeStudy(t, 8, probeAfter+20)
	if len(probed) > maxProbes {
		t.Errorf("%d probes on a machine the card describes, at most %d", len(probed), maxProbes)
	}
	for i, ok := range started {
		if ok {
			t.Errorf("probe %s started on a machine with the card's room", probed[i].Summary())
		}
	}
}

// The learned plan's chance of a refused config and the machine a probe
// is predicted on: a config past the card's edge has a chance below one
// half and one that grows when a config nearer the edge starts; its
// likeliest machine is one it starts on.
func TestRefusedChanceAndLikeliestFit(t *testing.T) {
	sp := priorSpace()
	s := newPriorSampler(t, sp, probePrior8{memoryPrior8{wall: 8}}).(*priorSampler)
	mm := s.memory
	c9 := space.Config{"a": int64(4), "b": int64(5)}
	c8 := space.Config{"a": int64(4), "b": int64(4)}
	if _, refused := mm.refusedChance(ConfigKey(sp, c8), c8); refused {
		t.Error("a config the card starts counts as refused")
	}
	p0, refused := mm.refusedChance(ConfigKey(sp, c9), c9)
	if !refused || p0 <= 0 || p0 >= 0.5 {
		t.Fatalf("a+b=9 on a card that starts a+b ≤ 8: refused %v chance %.3f, want refused with a chance in (0, 0.5)", refused, p0)
	}
	m := mm.likeliestFit(ConfigKey(sp, c9), c9)
	if fits, _ := (memoryPrior8{wall: 8}).MemoryFits(c9, m[0], m[1]); !fits {
		t.Errorf("likeliest machine ×%.3f memory ×%.3f overheads does not start a+b=9", m[0], m[1])
	}
	c85 := space.Config{"a": int64(5), "b": int64(4)}
	mm.tell(ConfigKey(sp, c85), c85, true) // another config that needs as much (a+b=9) started
	if p1, _ := mm.refusedChance(ConfigKey(sp, c9), c9); p1 <= p0 {
		t.Errorf("a+b=9 started, yet its twin's chance went %.3f → %.3f", p0, p1)
	}
}

// blindPrior8 is memoryPrior8 asked about other machines, on which it
// never predicts a config to start: no probe is ever worth running.
type blindPrior8 struct{ memoryPrior8 }

func (blindPrior8) PredictOn(context.Context, space.Config, float64, float64) ([]float64, bool) {
	return nil, false
}

// Looking for a probe must not move the prior's own random stream (a
// neighbour that activates a knob draws its value from it): a study in
// which no probe is worth running must propose what it would without
// probes.
func TestLookingForAProbeLeavesThePriorsStreamAlone(t *testing.T) {
	when, err := space.ParseExpr(`mode == "y"`)
	if err != nil {
		t.Fatal(err)
	}
	sp := priorSpace()
	sp.Params = append(sp.Params,
		space.Param{Name: "mode", Kind: space.Categorical, Values: []any{"x", "y"}},
		space.Param{Name: "z", Kind: space.Int, Low: 1, High: 4, When: when})
	s := newPriorSampler(t, sp, blindPrior8{memoryPrior8{wall: 8}}).(*priorSampler)
	inc := space.Config{"a": int64(4), "b": int64(4), "mode": "x"} // mode y activates z
	if err := s.Tell(context.Background(), observe(inc, 8)); err != nil {
		t.Fatal(err)
	}
	s.asked = probeAfter + 1
	s.rng = rand.New(rand.NewSource(1))
	if c, ok := s.probe(context.Background(), map[string]bool{}, false); ok {
		t.Fatalf("a probe of %s, though the prior predicts nothing on other machines", c.Summary())
	}
	if got, want := s.rng.Int63(), rand.New(rand.NewSource(1)).Int63(); got != want {
		t.Error("looking for a probe drew from the prior's random stream")
	}
}
