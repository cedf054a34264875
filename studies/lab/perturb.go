package lab

import (
	"context"
	"fmt"
	"math"
	"math/rand"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// Ranges of the widened reality family (docs/benchmarks.md, issue 21):
// everything the prior assumes moves, not only the GPU cards. Each
// reality scales every GPU card's HBM bandwidth and compute by
// U(1−effRange, 1+effRange), its NVLink by U(1−commRange, 1+commRange)
// and its usable memory by U(1−memRange, 1+memRange); every model card's
// MoE kernels (expert_eff) and DP-attention/DeepEP exchange (comm_eff) by
// a log-uniform factor in [expertLo, expertHi] and [commLo, commHi], its
// memory overheads besides weights and KV (activation peak, CUDA graphs,
// runtime buffers) by U(overLo, overHi), its MTP acceptance and every
// draft's by U(acceptLo, acceptHi) within [0.05, 0.95]; each engine's
// kernel time by a log-uniform factor in [1/kernelRange, kernelRange],
// the per-step CPU time (what chunked prefill multiplies) and prefill
// attention by log-uniform factors in [1/cpuRange, cpuRange], and the
// eager launch overhead CUDA graphs save by one in [eagerLo, eagerHi];
// and each seed's benchmark draws its own request sequence.
const (
	effRange            = 0.3
	commRange           = 0.5
	memRange            = 0.15
	expertLo, expertHi  = 0.3, 1.5
	commLo, commHi      = 0.1, 2
	overLo, overHi      = 0.7, 1.6
	acceptLo, acceptHi  = 0.4, 1.15
	kernelRange         = 1.3
	cpuRange            = 2.0
	eagerLo, eagerHi    = 0.5, 3
	profileSeedStride   = 7_919
	realitySeedMultiple = 7919
)

// Reality is one member of the family: the cards, the engines' skew and
// the request sequence the prior does not share.
type Reality struct {
	Cards *sim.Cards
	Skew  *sim.Skew
	// ProfileShift is added to every profile's seed (0: the landscape's
	// own request sequence).
	ProfileShift int64
	// HeldOut, when set, is a held-out error's factor on the reality's
	// true outcomes (heldOutFactor); NewReality never draws one.
	HeldOut func(space.Config) float64
}

// NewReality draws the reality of seed from the widened family around
// cards (which it does not change).
func NewReality(cards *sim.Cards, seed int64) Reality {
	rng := rand.New(rand.NewSource(seed*realitySeedMultiple + 17))
	return Reality{Cards: perturbCards(cards, rng), Skew: perturbSkew(rng), ProfileShift: seed * profileSeedStride}
}

// Perturb returns the cards of seed's reality (NewReality's cards).
func Perturb(cards *sim.Cards, seed int64) *sim.Cards { return NewReality(cards, seed).Cards }

func uniform(rng *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*rng.Float64() }

func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(uniform(rng, math.Log(lo), math.Log(hi)))
}

func clampAccept(a float64) float64 { return min(max(a, 0.05), 0.95) }

func perturbCards(cards *sim.Cards, rng *rand.Rand) *sim.Cards {
	out := &sim.Cards{}
	for _, g := range cards.GPUs {
		bw, compute := uniform(rng, 1-effRange, 1+effRange), uniform(rng, 1-effRange, 1+effRange)
		comm, mem := uniform(rng, 1-commRange, 1+commRange), uniform(rng, 1-memRange, 1+memRange)
		g.HBMTBs *= bw
		g.BF16TFLOPs *= compute
		g.FP8TFLOPs *= compute
		g.NVLinkGBs *= comm
		g.MemGiB *= mem
		out.GPUs = append(out.GPUs, g)
	}
	for _, m := range cards.Models {
		m.ExpertEff = orOne(m.ExpertEff) * logUniform(rng, expertLo, expertHi)
		m.CommEff = orOne(m.CommEff) * logUniform(rng, commLo, commHi)
		m.MemOverhead = orOne(m.MemOverhead) * uniform(rng, overLo, overHi)
		acc := m.MTPAcceptance
		if acc == 0 {
			acc = sim.DefaultMTPAcceptance
		}
		m.MTPAcceptance = clampAccept(acc * uniform(rng, acceptLo, acceptHi))
		out.Models = append(out.Models, m)
	}
	for _, d := range cards.Drafts {
		d.Acceptance = clampAccept(d.Acceptance * uniform(rng, acceptLo, acceptHi))
		out.Drafts = append(out.Drafts, d)
	}
	return out
}

func perturbSkew(rng *rand.Rand) *sim.Skew {
	k := &sim.Skew{Kernel: map[string]float64{}}
	for _, e := range []string{engines.VLLM, engines.SGLang, engines.TRTLLM, engines.Ollama} {
		k.Kernel[e] = logUniform(rng, 1/kernelRange, kernelRange)
	}
	k.StepCPU = logUniform(rng, 1/cpuRange, cpuRange)
	k.Prefill = logUniform(rng, 1/cpuRange, cpuRange)
	k.Eager = uniform(rng, eagerLo, eagerHi)
	return k
}

func orOne(x float64) float64 {
	if x == 0 {
		return 1
	}
	return x
}

// EvaluatePerturbed runs every variant (options differing in sampler
// settings and prior; Landscape, Seeds, FirstSeed and Multi come from the first) on
// every seed against that seed's own reality (NewReality, with the first's
// HeldOut error when set), each seed with
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
		out[i] = &Result{Options: v, Landscape: v.Landscape, Objectives: objSp.Objectives, HeldOut: first.HeldOut}
	}
	from, final := first.seedRange()
	for seed := from; seed <= final; seed++ {
		o, truth, err := realityTruth(ctx, sp, &objSp, first.Cache, first.HeldOut, int64(seed))
		if err != nil {
			return nil, err
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

// realityTruth is seed's reality, with held-out error heldOut ("":
// none), and its exhaustive truth, from the cache when it has them. The
// cache keeps the family reality's outcomes, the held-out factor is
// applied on reading them, so one cache serves every kind.
func realityTruth(ctx context.Context, sp, objSp *space.Space, cache, heldOut string, seed int64) (*Oracle, *Truth, error) {
	r := NewReality(sim.DefaultCards(), seed)
	f, err := heldOutFactor(heldOut, sp, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("reality of seed %d: %w", seed, err)
	}
	r.HeldOut = f
	o := NewRealityOracle(sp, r)
	if err := RestoreAll(cache, o); err != nil {
		return nil, nil, err
	}
	grid, err := o.Exhaust(ctx)
	if err != nil {
		return nil, nil, err
	}
	if err := PersistAll(cache, o); err != nil {
		return nil, nil, err
	}
	truth, err := TruthOf(grid, objSp)
	if err != nil {
		return nil, nil, fmt.Errorf("reality of seed %d: %w", seed, err)
	}
	return o, truth, nil
}
