package sim

import "strings"

// engineModel holds what distinguishes one engine's implementation from
// another's on the same hardware. The efficiency factors were fitted once
// on the seeds (docs/sim.md); everything else is engine behaviour.
type engineModel struct {
	// memEff and computeEff are the fractions of HBM bandwidth and tensor
	// FLOP/s the engine's kernels reach.
	memEff, computeEff float64
	// stepOverhead is CPU time per scheduler iteration (scheduling,
	// sampling, launching); perSeq is its growth per running sequence.
	stepOverhead, perSeq float64
	// eagerPerLayer is launch overhead per layer for a step that is not
	// replayed from a CUDA graph.
	eagerPerLayer float64
	// requestOverhead is per request HTTP, tokenisation and detokenisation
	// latency, seen in TTFT.
	requestOverhead float64
	// mixed means prefill chunks and decode tokens share a step (vLLM V1,
	// TRT-LLM); SGLang runs a prefill step and stalls decoding.
	mixed bool
	// reserve is the fraction of a request's max_tokens its admission
	// reserves in the KV cache (SGLang's new_token_ratio); vLLM allocates
	// on demand and preempts instead.
	reserve            float64
	graphs             bool
	prefixCacheDefault bool
	// mlaPrefill slows MLA prefill attention (chunked-context up-projection
	// and kernel quality); fitted on seed 002's long-context runs.
	mlaPrefill float64
	// loadGBs is checkpoint load bandwidth for the startup-time estimate.
	loadGBs float64
	// stepScale multiplies the step time of the engines still on the
	// seed-fitted model (all but vLLM, whose step model is refitted to the
	// calibration set, vllmperf.go). SGLang's 0.93 keeps the seed reports'
	// measured SGLang-over-vLLM wins (GLM-5.2 +18%, Qwen3-8B +6%) that the
	// refit, 7-22% faster than those two vLLM points, would otherwise
	// reverse. 0 means 1.
	stepScale float64

	// name is the engine imitated; rules its decisions (engineRules).
	name  string
	rules engineRules
	// refitted: the step model, request overheads, skew and calibration
	// are vllmperf.go's (fitted to the calibration set), not the seed
	// model scaled by stepScale.
	refitted bool
	// asyncScheduling: step n+1 is scheduled while step n runs (vLLM
	// since v0.13, sched.go admitCutoff).
	asyncScheduling bool
	// throughputMode: --performance-mode throughput doubles the default
	// max_running and prefill chunk (Launch).
	throughputMode bool
	// autoMaxLen: max_model_len = -1 plans the longest context that fits.
	autoMaxLen bool
	// batchedTokensCheck: an explicit prefill chunk below max_running is
	// refused (vLLM's max_num_batched_tokens >= max_num_seqs).
	batchedTokensCheck bool
	// dpAttnInTP: DP attention runs inside the TP group (SGLang: the
	// server holds tp GPUs and attention is tp/dp wide); otherwise DP
	// ranks each hold tp GPUs.
	dpAttnInTP bool
	// lockstepMoEDP: DP ranks of an MoE model run in lockstep sharing the
	// experts, what SGLang calls DP attention (vLLM, TRT-LLM).
	lockstepMoEDP bool
	// deepEP: the engine takes moe_a2a_backend = deepep (SGLang, which
	// then forces ep = tp).
	deepEP bool
	// splitMaxRunning: the user's max_running is divided among DP ranks.
	splitMaxRunning bool
	// fixDraftTokens: a topk-1 speculative config whose draft tokens are
	// not steps+1 is silently fixed (SGLang).
	fixDraftTokens bool
	// oneQueue: one scheduler however many DP ranks (Ollama).
	oneQueue bool
	// router is the disaggregated deployment's router (pd.go).
	router pdRouting
}

// engineRules are the engine's own decisions where a number does not
// do: its defaults, how it carves the KV pool out of memory and what it
// prints. Each engine's file (engine_vllm.go, engine_sglang.go,
// engine_trtllm.go, engine_ollama.go) implements them; nothing outside
// those files asks which engine it simulates.
type engineRules interface {
	// defaultMaxRunning is the per-rank cap when the user sets none.
	defaultMaxRunning(s *setup) int
	// defaultGraphBS is the largest decode batch captured in a CUDA graph.
	defaultGraphBS(s *setup) int
	// defaultChunk is the default prefill token budget per step
	// (engines.md §1.2 and §2.2).
	defaultChunk(s *setup) int
	// kvPool sets p.kv, the bytes left for the KV cache, or refuses the
	// plan as the engine does at startup (memory.go).
	kvPool(s *setup, p *memPlan) error
	// checkPlan refuses a plan once its KV tokens are known (vLLM: one
	// request of the planned context must fit).
	checkPlan(s *setup, p memPlan) error
	// planLog is what the engine prints about memory before it fails or
	// runs; initFailed the lines it ends a failed start with.
	planLog(s *setup, p memPlan) []string
	initFailed() []string
}

// pdRouting is a disaggregated deployment's router: its per-request
// service time and whether it forwards the decode request only once
// prefill is done (handoff); ok is false for an engine that serves no PD.
type pdRouting struct {
	service float64
	handoff bool
	ok      bool
}

// engineModels are the engines the simulator imitates, one model each, in
// engines.Names' order.
func engineModels() []engineModel {
	return []engineModel{vllmModel(), sglangModel(), trtllmModel(), ollamaModel()}
}

// engineModelOf is the model of the named engine.
func engineModelOf(name string) (engineModel, bool) {
	for _, m := range engineModels() {
		if m.name == name {
			return m, true
		}
	}
	return engineModel{}, false
}

// simulatedNames lists the simulated engines, for messages.
func simulatedNames() string {
	var ns []string
	for _, m := range engineModels() {
		ns = append(ns, m.name)
	}
	return strings.Join(ns, ", ")
}

// attentionBackend scales attention kernel time; prefillOverhead is a
// per-prefill-step cost (planning, JIT) fitted on seed 004.
type attentionBackend struct {
	decode, prefill float64
	prefillOverhead float64
}

var attentionBackends = map[string]attentionBackend{
	"default":      {1, 1, 0},
	"fa3":          {1, 1, 0},
	"flashinfer":   {1.02, 1.0, 0.2},
	"triton":       {1.08, 1.6, 0.018},
	"flashmla":     {0.95, 1, 0},
	"cutlass_mla":  {0.97, 1, 0},
	"trtllm_mla":   {0.95, 1, 0},
	"torch_native": {2.5, 3, 0.01},
}
