package lab

import (
	"context"
	"slices"
	"testing"

	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
)

// The lab's prior predicts on other machines as `servetune run`'s does:
// on the card's own scales exactly as Predict, and a config its card runs
// out of memory is predicted, feasible, on a machine with more room.
func TestOraclePriorPredictsOnAnotherMachine(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	var p search.Prior = newOraclePrior(NewOracle(sp), sp)
	mp, ok := p.(search.MachinePredictor)
	if !ok {
		t.Fatal("the lab's prior is not a search.MachinePredictor")
	}
	ctx := context.Background()
	c := sp.WithTargetEngine(Expert("glm52"))
	want, ok := p.Predict(ctx, c)
	got, gotOK := mp.PredictOn(ctx, c, 1, 1)
	if !ok || !gotOK || !slices.Equal(got, want) {
		t.Errorf("on the card's scales: %v %v, Predict %v %v", got, gotOK, want, ok)
	}
	// A config one knob from the expert's that the card refuses on memory
	// and a machine with more room (or fewer overheads) starts.
	plan := p.(search.MemoryPlanner)
	for _, f := range []float64{0.9, 0.95} {
		r := c.Clone()
		r["mem_fraction"] = f
		if fits, memory := plan.MemoryFits(r, 1, 1); fits || !memory {
			continue
		}
		for _, m := range [][2]float64{{1, 0.7}, {1.1, 0.5}, {1.3, 0.3}} {
			if fits, _ := plan.MemoryFits(r, m[0], m[1]); !fits {
				continue
			}
			if _, ok := p.Predict(ctx, r); ok {
				t.Fatalf("mem_fraction %g: the card's plan refuses it, Predict starts it", f)
			}
			if v, ok := mp.PredictOn(ctx, r, m[0], m[1]); !ok || len(v) != len(sp.Objectives) || v[0] <= 0 {
				t.Errorf("mem_fraction %g on ×%g memory, ×%g overheads: %v %v, want the feasible prediction the plan says", f, m[0], m[1], v, ok)
			}
			return
		}
	}
	t.Fatal("no config one knob from the expert's is refused by the card and started by a machine with more room: the check tells nothing")
}

// The lab's prior screens on other machines too (search.MachineScreener):
// on the card's own scales exactly as Screen.
func TestOraclePriorScreensOnAnotherMachine(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	p := newOraclePrior(NewOracle(sp), sp)
	var ms search.MachineScreener = p
	ctx := context.Background()
	c := sp.WithTargetEngine(Expert("glm52"))
	want, ok := p.Screen(ctx, c)
	got, gotOK := ms.ScreenOn(ctx, c, 1, 1)
	if !ok || !gotOK || !slices.Equal(got, want) {
		t.Errorf("on the card's scales: %v %v, Screen %v %v", got, gotOK, want, ok)
	}
	if full, _ := p.Predict(ctx, c); slices.Equal(full, want) {
		t.Skip("screening does not shorten this landscape's benchmark: the check tells nothing")
	}
}

// A lab cache keeps the prior's scaled machines: a later run's prior
// reads a machine's predictions back (without simulating them again) and
// they are what the machine simulated; another machine answers for
// itself.
func TestOraclePriorMachinesPersist(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ctx := context.Background()
	c := sp.WithTargetEngine(Expert("glm52"))
	run := func() (*Oracle, oraclePrior) {
		o := NewOracle(sp)
		if err := RestoreAll(dir, o); err != nil {
			t.Fatal(err)
		}
		return o, newOraclePrior(o, sp)
	}
	o, p := run()
	screen, sOK := p.ScreenOn(ctx, c, 1.105, 1)
	full, fOK := p.PredictOn(ctx, c, 1.3, 1)
	if err := PersistAll(dir, o); err != nil {
		t.Fatal(err)
	}
	_, back := run()
	key := c.Key()
	if _, ok := back.machine(1.105, 1).Screening().cache[key]; !ok {
		t.Error("the screening on ×1.105 memory is not read back from the cache")
	}
	if _, ok := back.machine(1.3, 1).cache[key]; !ok {
		t.Error("the prediction on ×1.3 memory is not read back from the cache")
	}
	if v, ok := back.ScreenOn(ctx, c, 1.105, 1); ok != sOK || !slices.Equal(v, screen) {
		t.Errorf("screening read back: %v %v, simulated %v %v", v, ok, screen, sOK)
	}
	if v, ok := back.PredictOn(ctx, c, 1.3, 1); ok != fOK || !slices.Equal(v, full) {
		t.Errorf("prediction read back: %v %v, simulated %v %v", v, ok, full, fOK)
	}
	other, _ := newOraclePrior(NewOracle(sp), sp).PredictOn(ctx, c, 1.105, 1)
	if v, _ := back.PredictOn(ctx, c, 1.105, 1); !slices.Equal(v, other) || slices.Equal(v, full) {
		t.Errorf("×1.105 memory predicts %v, simulated afresh %v; ×1.3 %v: machines must answer for themselves and differ here", v, other, full)
	}
}

// An oracle keeps at most maxMachines machines in memory; the least
// recently used is persisted when dropped and read back when asked again.
func TestOracleMachinesBounded(t *testing.T) {
	sp, err := Load("glm52")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := NewOracle(sp)
	if err := RestoreAll(dir, o); err != nil {
		t.Fatal(err)
	}
	made := 0
	at := func(i int) *Oracle {
		cards := simprior.NewMemoryPlan(o.cards).Cards(1+0.1*float64(i), 1)
		return o.machine([2]float64{float64(i), 1}, func() *Oracle { made++; return newOracle(o.sp, cards, nil) })
	}
	first := at(0)
	first.cache["c"] = &outcome{metrics: map[string]float64{"total_tps": 42}}
	for i := 1; i <= maxMachines; i++ {
		at(i)
		at(i) // asked twice, made once
	}
	if n := len(o.kept()); n != maxMachines {
		t.Fatalf("%d machines kept, bound %d", n, maxMachines)
	}
	if made != maxMachines+1 {
		t.Errorf("%d machines made for %d distinct ones", made, maxMachines+1)
	}
	again := at(0)
	if again == first {
		t.Fatal("the least recently used machine was not dropped")
	}
	if out := again.cache["c"]; out == nil || out.metrics["total_tps"] != 42 {
		t.Errorf("the dropped machine's outcome is not read back: %+v", out)
	}
}
