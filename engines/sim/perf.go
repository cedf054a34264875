package sim

import (
	"math"
)

const (
	fp8StreamPenalty = 1.43
	moeStreamPenalty = 1.8
)

// rankLoad is what one rank computes in one step.
type rankLoad struct {
	decodeSeqs int     // sequences producing tokens this step
	ctx        float64 // KV tokens the decode attention reads
	prefill    int     // prompt tokens computed this step
	// prefillSeqs is how many sequences finish their prompt this step
	// (each samples a first token).
	prefillSeqs int
	prefillCtx  float64 // Σ over prefill tokens of the context they attend to
}

func (l rankLoad) tokens(q int) int { return l.decodeSeqs*q + l.prefill }

// perf holds the per-step constants derived from a setup once.
type perf struct {
	s          *setup
	bw, flops  float64 // effective bytes/s and FLOP/s per GPU
	link       float64 // GPU-to-GPU bytes/s
	denseBytes float64 // non-expert weights read per step per GPU
	expertGPU  float64 // routed expert bytes per GPU
	denseFlop  float64 // FLOPs per token per GPU for non-expert layers
	expertFlop float64 // FLOPs per token for routed experts, whole model
	attnFlop   float64 // attention FLOPs per (token × context token) per GPU
	attnPeak   float64 // effective attention FLOP/s
	kvTok      float64
	backend    attentionBackend
	// q is the tokens each decoding sequence feeds the target per step
	// (1, or the verified draft tokens).
	q int
	// accept is expected tokens emitted per sequence per decode step.
	accept    float64
	draftCost float64 // seconds of drafting per decode step

	// The vLLM model's datasheet constants (vllmperf.go) and coefficients.
	coef                     Coefficients
	hbm, bf16, peak, linkRaw float64
	rawDense, rawExperts     float64
	tokenFlop, headFlop      float64
}

func newPerf(s *setup, p memPlan) *perf {
	m := s.model
	e := s.eng
	pf := &perf{s: s, kvTok: p.kvPerToken, backend: attentionBackends[s.attnBackend], q: 1, accept: 1}
	pf.bw = s.gpu.HBMTBs * 1e12 * e.memEff
	peak := s.gpu.BF16TFLOPs
	if s.fp8Compute {
		peak = s.gpu.FP8TFLOPs
	}
	pf.flops = peak * 1e12 * e.computeEff
	pf.link = s.gpu.NVLinkGBs * 1e9 * 0.7
	if pf.link == 0 {
		pf.link = max(s.gpu.PCIeGBs, 16) * 1e9 * 0.7
	}
	expertActive := 0.0
	if m.Experts > 0 {
		expertActive = m.ExpertParamsB * float64(m.TopK) / float64(m.Experts)
	}
	nonExpert := m.TotalParamsB - m.ExpertParamsB
	// FP8 weight-only GEMVs pay for scales and activation quantisation,
	// and grouped MoE GEMMs stream weights less efficiently than dense
	// ones; both show up as extra effective bytes.
	fp8 := 1.0
	if s.weightBytes == 1 {
		fp8 = fp8StreamPenalty
	}
	// The input embedding is looked up, not streamed, each step.
	if embed := float64(m.Vocab) * float64(m.Hidden) / 1e9; nonExpert-embed > embed {
		nonExpert -= embed
	}
	pf.denseBytes = (m.AttnParamsB/float64(s.attnTP) + (nonExpert-m.AttnParamsB)/float64(s.tp)) * 1e9 * s.weightBytes * fp8
	pf.expertGPU = m.ExpertParamsB / float64(s.tp) * 1e9 * s.weightBytes * fp8 * moeStreamPenalty / m.expertEff()
	pf.denseFlop = 2 * (m.ActiveParamsB - expertActive) * 1e9 / float64(s.attnTP)
	pf.expertFlop = 2 * expertActive * 1e9 / m.expertEff()
	// Prefill attention: QK^T and PV per head, in BF16 whatever the weights.
	vhd := m.VHeadDim
	if vhd == 0 {
		vhd = m.HeadDim
	}
	pf.attnFlop = 2 * float64(m.Layers*m.Heads*(m.HeadDim+vhd)) / float64(s.attnTP)
	pf.attnPeak = s.gpu.BF16TFLOPs * 1e12 * e.computeEff
	if m.Attention == "MLA" {
		pf.attnPeak /= e.mlaPrefill
	}
	pf.coef = s.coef
	if s.eng.refitted {
		pf.vllmConstants()
	}
	if s.spec.on {
		pf.q, pf.accept, pf.draftCost = s.spec.plan(s, pf)
	}
	return pf
}

// step is a step's time and, for the vLLM model, its features.
func (pf *perf) step(loads []rankLoad, decodeOnly bool) (float64, feat) {
	if pf.s.eng.refitted {
		return pf.vllmStep(loads, decodeOnly)
	}
	return pf.stepTime(loads, decodeOnly) * orOne(pf.s.eng.stepScale), feat{}
}

// stepTime is the wall time of one lockstep step of a group of ranks.
func (pf *perf) stepTime(loads []rankLoad, decodeOnly bool) float64 {
	s := pf.s
	total := 0
	seqs := 0
	for _, l := range loads {
		total += l.tokens(pf.q)
		seqs = max(seqs, l.decodeSeqs)
	}
	if total == 0 {
		return 0
	}
	graphed := decodeOnly && s.cudaGraph && seqs <= s.graphBS && !(s.deepep && s.deepepMode == "normal")
	if s.dpAttn {
		// Lockstep ranks wait for the slowest; experts see every rank's tokens.
		// Every rank's experts see the group's tokens: their terms are
		// the same for all ranks, computed once a step, not once a rank.
		ew, ef := pf.expertTerms(float64(total))
		worst := 0.0
		for _, l := range loads {
			worst = max(worst, pf.rankTime(l, graphed, ew, ef))
		}
		return worst + pf.moeComm(total, decodeOnly, graphed) + pf.overhead(seqs, graphed, decodeOnly)
	}
	ew, ef := pf.expertTerms(float64(loads[0].tokens(pf.q)))
	return pf.rankTime(loads[0], graphed, ew, ef) + pf.overhead(seqs, graphed, decodeOnly)
}

// expertTerms are the weight bytes and FLOPs a rank's routed experts add
// to its step when they see gt tokens (0, 0 for a dense model).
func (pf *perf) expertTerms(gt float64) (weights, flop float64) {
	if pf.expertGPU <= 0 {
		return 0, 0
	}
	s := pf.s
	return pf.expertGPU * touched(gt, s.model.TopK, s.model.Experts), pf.expertFlop * gt / float64(s.tp) * pf.expertImbalance(gt)
}

// rankTime is one GPU's kernel time: weight GEMMs on a roofline, attention
// on its own roofline, and tensor-parallel all-reduces; ew and ef are its
// experts' terms (expertTerms).
func (pf *perf) rankTime(l rankLoad, graphed bool, ew, ef float64) float64 {
	s := pf.s
	tok := float64(l.tokens(pf.q))
	var weights, flop float64
	if tok > 0 {
		weights = pf.denseBytes
		flop = pf.denseFlop * tok
	}
	weights += ew // 0 for a dense model
	flop += ef
	linear := math.Max(weights/pf.bw, flop/pf.flops)
	if graphed && s.compile {
		linear *= 0.97
	}
	decodeAttn := l.ctx * float64(pf.q) * pf.kvTok / pf.bw * pf.backend.decode
	prefillAttn := 0.0
	if l.prefill > 0 {
		prefillAttn = l.prefillCtx*pf.attnFlop/pf.attnPeak*pf.backend.prefill + pf.backend.prefillOverhead
	}
	return linear + decodeAttn + prefillAttn + pf.allReduce(tok, graphed)
}

// touched is the expected fraction of experts that receive a token.
func touched(tokens float64, topk, experts int) float64 {
	if experts == 0 {
		return 0
	}
	miss := 1 - float64(topk)/float64(experts)
	return 1 - math.Pow(miss, tokens)
}

// expertImbalance: the busiest GPU's share of routed tokens exceeds the
// mean, more so with few tokens and without DeepEP's balanced dispatch.
func (pf *perf) expertImbalance(tokens float64) float64 {
	s := pf.s
	if s.ep <= 1 && !s.deepep {
		return 1 // TP-sharded experts: every GPU does a slice of every expert
	}
	perGPU := tokens * float64(s.model.TopK) / float64(s.tp)
	imb := 1 + 1.5/math.Sqrt(max(perGPU, 1))
	if !s.deepep {
		imb += 0.15
	}
	return imb
}

func (pf *perf) allReduce(tokens float64, graphed bool) float64 {
	n := pf.s.attnTP
	if n <= 1 {
		return 0
	}
	lat := 12e-6
	if !graphed {
		lat = 30e-6
	}
	bytes := tokens * float64(pf.s.model.Hidden) * 2 * 2 * float64(n-1) / float64(n)
	return 2 * float64(pf.s.model.Layers) * (lat + bytes/pf.link)
}

// moeComm is the token exchange around each MoE layer under DP attention:
// DeepEP dispatch/combine, or all-gather + reduce-scatter without it.
func (pf *perf) moeComm(groupTokens int, decodeOnly, graphed bool) float64 {
	s := pf.s
	layers := float64(max(s.model.MoELayers, 1))
	if s.model.Experts == 0 {
		layers = float64(s.model.Layers)
	}
	hidden := float64(s.model.Hidden)
	tok := float64(groupTokens)
	if !s.deepep {
		lat := 20e-6
		if !graphed {
			lat = 40e-6
		}
		bytes := tok * hidden * 2 * 2 * float64(s.dp-1) / float64(s.dp)
		return layers * 2 * (lat + bytes/pf.link) / s.model.commEff()
	}
	mode := s.deepepMode
	if mode == "auto" {
		mode = "normal"
		if decodeOnly {
			mode = "low_latency"
		}
	}
	perRank := tok / float64(s.tp)
	bytes := perRank * float64(s.model.TopK) * hidden * 1.5 // FP8 dispatch, BF16 combine
	if mode == "low_latency" {
		// Low-latency kernels use RDMA-style puts: little latency, poor
		// bandwidth once the batch grows.
		return layers * 2 * (9e-6 + bytes/(pf.link*0.45)) / s.model.commEff()
	}
	// Normal mode syncs with the host to size its receive buffers, once
	// per dispatch.
	return layers * 2 * (1.2e-3 + bytes/pf.link) / s.model.commEff()
}

// overhead is per-step CPU and launch time.
func (pf *perf) overhead(seqs int, graphed, decodeOnly bool) float64 {
	s := pf.s
	o := s.eng.stepOverhead + s.eng.perSeq*float64(seqs)
	if !graphed {
		o += s.eng.eagerPerLayer * float64(s.model.Layers)
	}
	if decodeOnly {
		o += pf.draftCost
	}
	return o
}
