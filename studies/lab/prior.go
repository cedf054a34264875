package lab

import (
	"context"
	"math"

	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/space"
)

// oraclePrior is the simulator prior served from an oracle's cache: the
// lab's studies share one screening of the space.
type oraclePrior struct {
	o   *Oracle
	sp  *space.Space
	mem *simprior.MemoryPlan
}

// newOraclePrior is the prior of a study of sp served from o, with o's
// memory plan (the one `servetune run`'s simulator prior asks).
func newOraclePrior(o *Oracle, sp *space.Space) oraclePrior {
	return oraclePrior{o: o, sp: sp, mem: simprior.NewMemoryPlan(o.cards)}
}

// MemoryFits asks the oracle's memory plan about c on a machine with mem
// times the card's GPU memory and overhead times its overheads
// (search.MemoryPlanner).
func (p oraclePrior) MemoryFits(c space.Config, mem, overhead float64) (fits, ok bool) {
	return p.mem.Fits(p.sp.WithTargetEngine(c), p.sp.Target, mem, overhead)
}

// Predict returns the oracle's noiseless values of the study's objectives
// (on the landscape's first profile, as the oracle measures).
func (p oraclePrior) Predict(ctx context.Context, c space.Config) ([]float64, bool) {
	return p.values(ctx, p.o, c)
}

// Screen returns the values on the oracle's screening profiles.
func (p oraclePrior) Screen(ctx context.Context, c space.Config) ([]float64, bool) {
	return p.values(ctx, p.o.Screening(), c)
}

func (p oraclePrior) values(ctx context.Context, o *Oracle, c space.Config) ([]float64, bool) {
	out := o.Eval(ctx, p.sp.WithTargetEngine(c))
	if out.err != nil {
		return nil, false
	}
	vals := make([]float64, len(p.sp.Objectives))
	for i, obj := range p.sp.Objectives {
		v, ok := out.metrics[obj.Metric]
		if !ok || math.IsNaN(v) {
			return nil, false
		}
		vals[i] = v
	}
	return vals, true
}
