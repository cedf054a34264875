package prior

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestRankMachine(t *testing.T) {
	rung := func(i int, step float64) float64 { return math.Exp(float64(i) * step) }
	m, o := machineRungs*memStep, machineRungs*overStep // one machine step, in log scale
	cases := []struct {
		name         string
		contradicted bool
		mem, over    float64
		want         [2]float64
	}{
		{"the card's plan stands: the card", false, 1.3, 0.7, cardMachine()},
		{"contradicted, the plan's mean on the card", true, 1, 1, cardMachine()},
		{"contradicted, within half a step of the card", true, math.Exp(0.4 * m), math.Exp(-0.4 * o), cardMachine()},
		{"more memory, rounded to its step", true, math.Exp(1.3 * m), 1, [2]float64{math.Exp(m), 1}},
		{"fewer overheads, rounded to its step", true, 1.0, math.Exp(-1.6 * o), [2]float64{1, math.Exp(-2 * o)}},
		{"more memory and fewer overheads", true, math.Exp(1.2 * m), math.Exp(-0.9 * o), [2]float64{math.Exp(m), math.Exp(-o)}},
		{"less memory (a card that overrates the machine): the card", true, math.Exp(-0.7 * m), math.Exp(0.6 * o), cardMachine()},
		{"less memory, fewer overheads: the card", true, math.Exp(-1.2 * m), math.Exp(-1.2 * o), cardMachine()},
		{"more memory, more overheads: the card", true, math.Exp(1.2 * m), math.Exp(1.2 * o), cardMachine()},
		{"past the ladder: its last rung", true, 3, 0.01, [2]float64{rung(ladderHalf, memStep), rung(-ladderHalf, overStep)}},
		{"no scales: the card", true, math.NaN(), 1, cardMachine()},
	}
	for _, c := range cases {
		got := rankMachine(c.contradicted, c.mem, c.over)
		if math.Abs(got[0]-c.want[0]) > 1e-9 || math.Abs(got[1]-c.want[1]) > 1e-9 {
			t.Errorf("%s: rankMachine(%v, %.4f, %.4f) = %v, want %v", c.name, c.contradicted, c.mem, c.over, got, c.want)
		}
	}
}

// machinePrior8 is memoryPrior8 whose predictions on a machine with more
// room than the card rank configs differently: there a small b is best
// (as a lower mem_fraction costs nothing on a B200 the card takes for an
// H200).
type machinePrior8 struct{ memoryPrior8 }

func (p machinePrior8) PredictOn(_ context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	a, _ := c.Int("a")
	b, _ := c.Int("b")
	fits, _ := p.MemoryFits(c, mem, overhead)
	if mem/overhead > 1 {
		return []float64{10 - float64(b) + 0.01*float64(a)}, fits
	}
	return []float64{truth(c) + 0.01*float64(a)}, fits
}

// Once a trial contradicts the card's memory plan (a config the card
// refuses started), the prior ranks its candidates on the learned plan's
// machine, not on the card: its next pick is the best there (b = 1, the
// largest a), where the card's ranking would pick a+b = 8 with the
// largest a (6, 2).
func TestPriorRanksOnTheLearnedMachine(t *testing.T) {
	sp := priorSpace()
	s := newPriorSampler(t, sp, machinePrior8{memoryPrior8{wall: 8}}).(*sampler)
	ctx := context.Background()
	c9 := space.Config{"a": int64(4), "b": int64(5)}
	if err := s.Tell(ctx, observe(c9, 10)); err != nil {
		t.Fatal(err)
	}
	if m := s.machine.machineOf(); m == cardMachine() || m[0]/m[1] <= 1 {
		t.Fatalf("a+b=9 started on a card that starts a+b ≤ 8, yet the prior's machine is ×%.3f memory ×%.3f overheads", m[0], m[1])
	}
	c, err := askOne(s)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := s.Explain(c); p.Origin != "prior" {
		t.Fatalf("the first proposal is the %s's", p.Origin)
	}
	if a, _ := c.Int("a"); a != 6 || c["b"] != int64(1) {
		t.Errorf("the prior picked %s on a machine with more room, want a=6 b=1 (its best there)", c.Summary())
	}
	// The residual is learnt against the machine's predictions: the
	// started config measured 9 where the machine predicts 10-5+0.04.
	if got, want := s.st.tab.resid.predict(0, c9), math.Log(9/5.04); math.Abs(got-want) > 1e-9 {
		t.Errorf("residual for the measured config %.4f, want %.4f (against the machine's prediction)", got, want)
	}
}

// While the card's plan stands the prior predicts on the card, whether or
// not its prior can predict on other machines: the same proposals.
func TestPriorStaysOnTheCardWhileItsPlanStands(t *testing.T) {
	sp := priorSpace()
	on := newPriorSampler(t, sp, machinePrior8{memoryPrior8{wall: 8}}).(*sampler)
	card := newPriorSampler(t, sp, memoryPrior8{wall: 8}).(*sampler)
	for i := range 6 {
		a, errA := askOne(on)
		b, errB := askOne(card)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		if a.Key() != b.Key() {
			t.Fatalf("proposal %d: %s with a machine predictor, %s without, on a machine the card describes", i, a.Summary(), b.Summary())
		}
		for _, s := range []*sampler{on, card} {
			if err := s.Tell(context.Background(), observe(a, 8)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if on.st.tab.pred.machine != [2]float64{} {
		t.Errorf("the prior moved to ×%v on a machine its card describes", on.st.tab.pred.machine)
	}
}
