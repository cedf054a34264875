package sim

import (
	"fmt"
	"math"
	"strings"
)

// Feature indices of the vLLM step-time model (docs/sim.md). A step's time
// is the dot product of its features and the coefficients; each feature is
// in seconds at the card's datasheet peak (or a count), so a coefficient
// is an inverse efficiency or a per-event time, the same on every GPU.
const (
	fWeights      = iota // dense weight bytes / HBM bandwidth
	fExperts             // routed-expert weight bytes touched / HBM bandwidth
	fLinear              // dense GEMM FLOPs / tensor peak (roofline: max with the weights)
	fExpertLinear        // routed-expert grouped-GEMM FLOPs / tensor peak
	fKV                  // decode attention KV bytes / HBM bandwidth
	fDecodeAttn          // decode attention FLOPs (query heads × context) / BF16 peak: the work per query head that a GQA/MHA kernel does on each KV byte it reads (not MLA's)
	fAttn                // prefill attention FLOPs / BF16 peak
	fComm                // all-reduce link bytes at the algorithm's measured share / link bandwidth (allreduce.go)
	fReduce              // all-reduce latency per step at the cited microbenchmarks, seconds (allreduce.go)
	fSkew                // all-reduces per step × the expected lead of the last of tp ranks, in rank-drift σ (allreduce.go)
	fStep                // one per step: scheduler, sampling, launch
	fSeq                 // running sequences: per-sequence CPU work
	fMultiproc           // one per step with tp > 1: the executor's broadcast
	fMoE                 // MoE layers per step: routing, sort and grouped-GEMM launches, whatever the tokens
	fLayer               // decoder layers per step: each layer's ~10 kernels' launch gaps and tails, whatever the tokens and TP
	fRequest             // one per request, in TTFT: HTTP, validation, tokenisation
	fPromptK             // per 1000 prompt tokens, in TTFT: tokenising the text
	fFixed               // already in seconds (MoE exchange, drafting, eager launch): coefficient 1
	nFeat
)

var featNames = [nFeat]string{"weights", "experts", "linear", "expert_linear", "kv", "decode_attn", "attn", "comm", "reduce", "skew", "step", "seq", "multiproc", "moe", "layer", "request", "prompt_k", "fixed"}

// FeatureNames names the coefficients, in order.
func FeatureNames() []string { return featNames[:] }

// FeatureIndex is the index of the named coefficient, -1 if none.
func FeatureIndex(name string) int {
	for i, n := range featNames {
		if n == name {
			return i
		}
	}
	return -1
}

// feat is a step's (or a request's accumulated) features.
type feat [nFeat]float64

func (f *feat) add(g *feat, w float64) {
	for i := range f {
		f[i] += w * g[i]
	}
}

// Coefficients weigh the features. Fitted ones come from the calibration
// set (FittedVLLM); fFixed is always 1.
type Coefficients [nFeat]float64

func (c *Coefficients) dot(f *feat) float64 {
	t := 0.0
	for i := range f {
		t += c[i] * f[i]
	}
	return t
}

// Fitted lists which coefficients a fit may move.
func Fitted(i int) bool { return i != fFixed }

// Lower is the least coefficient i may take. An inverse efficiency
// against a datasheet peak is bounded by the best published kernels on
// H100-class GPUs (HBM streaming ~92% of peak, dense GEMMs ~70%,
// FlashAttention-3 ~75%); the all-reduce's two terms are already at the
// cited microbenchmarks' speed, so their coefficients are ratios to those:
// the bytes and the latency no faster than measured, less 10% and a half
// (the latency's measurement includes a launch);
// times per event are >= 0.
func Lower(i int) float64 {
	switch i {
	case fWeights, fExperts, fKV:
		return 1.08
	case fLinear, fExpertLinear:
		return 1.4
	case fAttn, fDecodeAttn:
		return 1.33
	case fComm:
		return 0.9
	case fReduce:
		return 0.5
	}
	return 0
}

// Upper is the most coefficient i may take. Dense GEMMs of a
// prefill-sized batch reach at least a third of the tensor peak in every
// published vLLM profile; the calibration runs' prefills are mostly served
// from the prefix cache, so without this bound the few they compute
// would let the fit make prefill compute implausibly slow (and a burst of
// uncached prompts saturate). Others are unbounded above.
func Upper(i int) float64 {
	if i == fLinear {
		return 3
	}
	return math.Inf(1)
}

// PriorVLLM is where a fit starts and what it is pulled toward when the
// data say little: HBM streaming at ~86% of peak, GEMMs at ~33%, grouped
// MoE GEMMs at half the dense efficiency, a few milliseconds of CPU per
// step, ~10 µs of kernel gaps per layer (about ten kernels of a decoder
// layer replayed from a CUDA graph, ~1 µs apart) and ~10 ms per request —
// typical published figures, not fits; the
// all-reduce at the cited microbenchmarks' speed (1, 1); decode attention's
// per-head FLOPs at ~3% of the peak (one query row in a 64-row tensor-core
// tile at about two thirds of its rate: a guess the fit moves, 31 today).
func PriorVLLM() Coefficients {
	return Coefficients{
		fWeights: 1.16, fExperts: 2.0, fLinear: 3.0, fExpertLinear: 3.0, fKV: 1.3, fDecodeAttn: 30, fAttn: 3.0, fComm: 1,
		fReduce: 1, fSkew: 2e-6, fStep: 2e-3, fSeq: 10e-6, fMultiproc: 50e-6, fMoE: 20e-6, fLayer: 10e-6, fRequest: 10e-3, fPromptK: 1e-3,
		fFixed: 1,
	}
}

func (c Coefficients) String() string {
	var b strings.Builder
	for i, v := range c {
		fmt.Fprintf(&b, "%s=%.4g ", featNames[i], v)
	}
	return strings.TrimSpace(b.String())
}

// GoLiteral prints c as the Go source of FittedVLLM.
func (c Coefficients) GoLiteral() string {
	var b strings.Builder
	b.WriteString("Coefficients{\n")
	for i, v := range c {
		fmt.Fprintf(&b, "\t%s: %.6g,\n", constName(i), v)
	}
	b.WriteString("}")
	return b.String()
}

func constName(i int) string {
	n := featNames[i]
	switch n {
	case "kv":
		return "fKV"
	case "moe":
		return "fMoE"
	case "prompt_k":
		return "fPromptK"
	case "expert_linear":
		return "fExpertLinear"
	case "decode_attn":
		return "fDecodeAttn"
	}
	return "f" + strings.ToUpper(n[:1]) + n[1:]
}
