package lab

import (
	"context"

	"github.com/servetune/servetune/space"
)

// The oracle prior on another machine (search.MachinePredictor): the
// prior's cards scaled by a memory probe's scales, simulated by an oracle
// of their own. The oracles are kept by the prior's oracle, so the
// studies of one run share them (the scales are rungs of one ladder),
// and are not persisted: a study probes a few configs at most.

// machine is the prior oracle's oracle on its cards scaled by mem and
// overhead, made on first use.
func (p oraclePrior) machine(mem, overhead float64) *Oracle {
	key := [2]float64{mem, overhead}
	p.o.mu.Lock()
	defer p.o.mu.Unlock()
	if p.o.machines == nil {
		p.o.machines = map[[2]float64]*Oracle{}
	}
	if m := p.o.machines[key]; m != nil {
		return m
	}
	m := newOracle(p.o.sp, p.mem.Cards(mem, overhead), p.o.skew)
	p.o.machines[key] = m
	return m
}

// PredictOn returns the noiseless values on the scaled machine.
func (p oraclePrior) PredictOn(ctx context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	return p.values(ctx, p.machine(mem, overhead), c)
}

// ScreenOn returns the values on the scaled machine's screening
// profiles (search.MachineScreener).
func (p oraclePrior) ScreenOn(ctx context.Context, c space.Config, mem, overhead float64) ([]float64, bool) {
	return p.values(ctx, p.machine(mem, overhead).Screening(), c)
}
