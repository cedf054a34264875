package sim

import "math"

// vllmStep is a vLLM V1 step's time and features: the slowest rank of a
// lockstep group, plus the per-step CPU work.
func (pf *perf) vllmStep(loads []rankLoad, decodeOnly bool) (float64, feat) {
	s := pf.s
	total, seqs := 0, 0
	for _, l := range loads {
		total += l.tokens(pf.q)
		seqs = max(seqs, l.decodeSeqs+l.prefillSeqs)
	}
	var f feat
	if total == 0 {
		return 0, f
	}
	worst := -1.0
	for i, l := range loads {
		if i > 0 && !s.dpAttn {
			break
		}
		rf := pf.vllmRank(l, total)
		if t := pf.coef.dot(&rf); t > worst {
			worst, f = t, rf
		}
	}
	f[fStep] = 1
	f[fLayer] = float64(s.model.Layers)
	f[fSeq] = float64(seqs)
	if s.model.Experts > 0 {
		f[fMoE] = float64(max(s.model.MoELayers, 1))
	}
	if s.tp > 1 || s.dp > 1 {
		f[fMultiproc] = 1
	}
	graphed := decodeOnly && s.cudaGraph && seqs <= s.graphBS
	if s.dpAttn {
		f[fFixed] += pf.moeComm(total, decodeOnly, graphed)
	}
	if !s.cudaGraph {
		f[fFixed] += s.eng.eagerPerLayer * float64(s.model.Layers)
	}
	if decodeOnly {
		f[fFixed] += pf.draftCost
	}
	return pf.coef.dot(&f), f
}

// vllmRank is one GPU's kernel work: the weight GEMMs on a roofline
// (weights streamed or FLOPs, whichever binds under the coefficients),
// decode attention reading the KV cache, prefill attention's FLOPs, and
// the tensor-parallel all-reduces.
func (pf *perf) vllmRank(l rankLoad, groupTokens int) feat {
	s := pf.s
	var f feat
	tok := float64(l.tokens(pf.q))
	if tok == 0 {
		return f
	}
	gt := tok
	if s.dpAttn {
		gt = float64(groupTokens)
	}
	f[fWeights] = pf.rawDense / pf.hbm
	lin := (pf.tokenFlop*tok + pf.headFlop*float64(l.decodeSeqs+l.prefillSeqs)) / pf.peak
	elin := 0.0
	if pf.rawExperts > 0 {
		f[fExperts] = pf.rawExperts * touched(pf.graphPadded(gt), s.model.TopK, s.model.Experts) / pf.hbm
		elin = pf.expertFlop * gt / float64(s.tp) * pf.expertImbalance(gt) / pf.peak
	}
	c := &pf.coef
	if c[fLinear]*lin+c[fExpertLinear]*elin > c[fWeights]*f[fWeights]+c[fExperts]*f[fExperts] {
		f[fWeights], f[fExperts], f[fLinear], f[fExpertLinear] = 0, 0, lin, elin
	}
	f[fKV] = l.ctx * float64(pf.q) * pf.kvTok / pf.hbm * pf.backend.decode
	// Each KV byte read serves every query head of its group: QK dots,
	// softmax and PV per query head and context token. Bytes alone price
	// a GQA model's decode attention like an MHA model's of the same KV
	// size, although it does heads/kv_heads times the work on it. A
	// FlashAttention-style decode gives each query head its own tile,
	// mostly padding at one query token (the fit: 3% of the peak); MLA's
	// decode kernels pack all heads into one tile over the shared latent
	// and run near the tensor peak, so MLA keeps the bytes alone.
	if s.model.Attention != "MLA" {
		f[fDecodeAttn] = l.ctx * float64(pf.q) * pf.attnFlop / pf.bf16 * pf.backend.decode
	}
	if l.prefill > 0 {
		f[fAttn] = l.prefillCtx * pf.attnFlop / pf.bf16 * pf.backend.prefill
		if s.model.Attention == "MLA" {
			f[fAttn] *= s.eng.mlaPrefill
		}
		f[fFixed] += pf.backend.prefillOverhead
	}
	if n := s.attnTP; n > 1 {
		// Two all-reduces per layer of the step's hidden states (BF16),
		// by the algorithm vLLM picks for that size (allreduce.go): the
		// cited latency in reduce, the link bytes in comm.
		layers := 2 * float64(s.model.Layers)
		ar := allReduceCost(tok*float64(s.model.Hidden)*2, n, s.gpu.NVLinkGBs > 0)
		f[fReduce] = layers * ar.latency
		f[fSkew] = layers * lastOfRanks(n)
		f[fComm] = layers * ar.linkBytes / pf.linkRaw
	}
	return f
}

// vllmConstants fills the raw (datasheet, unscaled) per-GPU constants the
// vLLM model divides by the coefficients.
func (pf *perf) vllmConstants() {
	s, m := pf.s, pf.s.model
	// The datasheet × the generation's measured share ÷ Hopper's
	// (gpugen.go): the coefficients are fitted on H100s. A dtype's
	// weights stream at their kernel's measured time per byte
	// (dtypekernel.go).
	hbmR, bf16R, fp8R, attnR := genRatio(s.gpu)
	pf.hbm = s.gpu.HBMTBs * 1e12 * hbmR
	pf.bf16 = s.gpu.BF16TFLOPs * 1e12 * attnR // prefill attention's peak
	pf.peak = s.gpu.BF16TFLOPs * 1e12 * bf16R
	if s.fp8Compute {
		pf.peak = s.gpu.FP8TFLOPs * 1e12 * fp8R
	}
	k := weightKernel(s)
	pf.linkRaw = s.gpu.NVLinkGBs * 1e9
	if pf.linkRaw == 0 {
		pf.linkRaw = max(s.gpu.PCIeGBs, 16) * 1e9
	}
	embed := float64(m.Vocab) * float64(m.Hidden) / 1e9 // one table, in B params
	nonExpert := m.TotalParamsB - m.ExpertParamsB
	// The input embedding is looked up, not streamed; the LM head runs
	// once per sampled sequence, not per prompt token.
	streamed := nonExpert - embed
	if streamed <= embed {
		streamed = nonExpert // tied or tiny: keep the card's count
	}
	attn := m.AttnParamsB
	pf.rawDense = (attn/float64(s.attnTP) + (streamed-attn)/float64(s.tp)) * 1e9 * s.weightBytes * k.stream
	pf.rawExperts = m.ExpertParamsB / float64(s.tp) * 1e9 * s.weightBytes * k.stream / m.expertEff()
	expertActive := 0.0
	if m.Experts > 0 {
		expertActive = m.ExpertParamsB * float64(m.TopK) / float64(m.Experts)
	}
	perTok := m.ActiveParamsB - expertActive - 2*embed
	if perTok <= 0 {
		perTok = m.ActiveParamsB - expertActive
	}
	pf.tokenFlop = 2 * perTok * 1e9 / float64(s.attnTP)
	pf.headFlop = 2 * embed * 1e9 / float64(s.tp)
}

// graphPadded is the batch a step runs as: replayed from a CUDA graph, a
// batch is padded to the next captured size (vLLM captures 1, 2, 4, then
// every 8 to 256 and every 16 above, up to its largest size), and the
// padding rows — stale token ids — are routed like real tokens, so they
// touch experts too.
func (pf *perf) graphPadded(tokens float64) float64 {
	s := pf.s
	n := int(math.Ceil(tokens))
	limit := min(s.graphBS, s.chunk)
	if !s.cudaGraph || n > limit || n <= 0 {
		return tokens
	}
	var p int
	switch {
	case n <= 2:
		p = n
	case n <= 4:
		p = 4
	case n <= 256:
		p = (n + 7) / 8 * 8
	default:
		p = (n + 15) / 16 * 16
	}
	return float64(min(p, limit))
}
