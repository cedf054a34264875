package lab

import (
	"context"
	"fmt"
	"math/rand"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// Perturbation ranges of the built-in reality family (docs/benchmarks.md):
// each seed's reality scales every GPU card's HBM bandwidth and its
// compute (BF16 and FP8 together) by U(1−effRange, 1+effRange), its
// NVLink (all-reduce, all-gather and DeepEP traffic) by U(1−commRange,
// 1+commRange) and its usable memory by U(1−memRange, 1+memRange) — the
// card-level stand-in for ±10% memory overhead, which moves the OOM
// cliff — and shifts every draft's acceptance by U(−acceptRange,
// +acceptRange) within [0.05, 0.95].
const (
	effRange    = 0.3
	commRange   = 0.5
	memRange    = 0.05
	acceptRange = 0.2
)

// Perturb returns a copy of cards drawn from the reality family for seed.
func Perturb(cards *sim.Cards, seed int64) *sim.Cards {
	rng := rand.New(rand.NewSource(seed*7919 + 17))
	u := func(r float64) float64 { return 1 - r + 2*r*rng.Float64() }
	out := &sim.Cards{Models: cards.Models}
	for _, g := range cards.GPUs {
		bw, compute, comm, mem := u(effRange), u(effRange), u(commRange), u(memRange)
		g.HBMTBs *= bw
		g.BF16TFLOPs *= compute
		g.FP8TFLOPs *= compute
		g.NVLinkGBs *= comm
		g.MemGiB *= mem
		out.GPUs = append(out.GPUs, g)
	}
	for _, d := range cards.Drafts {
		d.Acceptance = min(max(d.Acceptance+acceptRange*(2*rng.Float64()-1), 0.05), 0.95)
		out.Drafts = append(out.Drafts, d)
	}
	return out
}

// EvaluatePerturbed runs every variant (options differing in sampler
// settings and prior; Landscape, Seeds and Multi come from the first) on
// every seed against that seed's own reality (Perturb), each seed with
// its own exhaustive truth shared by the variants; a prior (Options.Prior)
// keeps simulating the unperturbed cards. It costs one exhaustive grid
// per seed.
func EvaluatePerturbed(ctx context.Context, sp *space.Space, variants []Options) ([]*Result, error) {
	first := variants[0]
	objSp := *sp
	if !first.Multi {
		objSp.Objectives = sp.Objectives[:1]
	}
	out := make([]*Result, len(variants))
	for i, v := range variants {
		out[i] = &Result{Options: v, Landscape: v.Landscape, Objectives: objSp.Objectives}
	}
	for seed := 1; seed <= first.Seeds; seed++ {
		o := NewOracleOn(sp, Perturb(sim.DefaultCards(), int64(seed)))
		if err := RestoreAll(first.Cache, o); err != nil {
			return nil, err
		}
		grid, err := o.Exhaust(ctx)
		if err != nil {
			return nil, err
		}
		if err := PersistAll(first.Cache, o); err != nil {
			return nil, err
		}
		truth, err := TruthOf(grid, &objSp)
		if err != nil {
			return nil, fmt.Errorf("reality of seed %d: %w", seed, err)
		}
		for i, v := range variants {
			out[i].Truth = *truth
			for _, sampler := range v.Samplers {
				r, err := runOne(ctx, o, sp, objSp.Objectives, truth, sampler, seed, v)
				if err != nil {
					return nil, fmt.Errorf("%s seed %d: %w", sampler, seed, err)
				}
				r.Optimum = truth.Optimum
				out[i].Runs = append(out[i].Runs, r)
			}
		}
	}
	return out, nil
}
