package engines

import "github.com/servetune/servetune/space"

// The knob vocabulary of space files. Every adapter maps a subset of these
// to its engine's flags; a knob outside an adapter's subset is an error
// unless its value is "default".
const (
	KnobEngine                    = "engine"
	KnobModelVariant              = "model_variant"
	KnobTP                        = "tp"
	KnobDP                        = "dp"
	KnobEP                        = "ep"
	KnobEnableDPAttention         = "enable_dp_attention"
	KnobMemFraction               = "mem_fraction"
	KnobChunkedPrefill            = "chunked_prefill"
	KnobMaxRunning                = "max_running"
	KnobKVCacheDType              = "kv_cache_dtype"
	KnobMoEA2ABackend             = "moe_a2a_backend"
	KnobDeepEPMode                = "deepep_mode"
	KnobSpeculativeAlgorithm      = "speculative_algorithm"
	KnobSpeculativeDraftModel     = "speculative_draft_model"
	KnobSpeculativeNumSteps       = "speculative_num_steps"
	KnobSpeculativeEagleTopK      = "speculative_eagle_topk"
	KnobSpeculativeNumDraftTokens = "speculative_num_draft_tokens"
	KnobSpeculativeNumTokens      = "speculative_num_tokens"
	KnobCUDAGraphMaxBS            = "cuda_graph_max_bs"
	KnobAttentionBackend          = "attention_backend"
	KnobTorchCompile              = "torch_compile"
	KnobPrefixCaching             = "prefix_caching"
	KnobDisableCUDAGraph          = "disable_cuda_graph"
	// KnobMaxModelLen is the longest request the server plans KV for:
	// vLLM --max-model-len (-1: "auto", what fits), SGLang
	// --context-length, TRT-LLM --max_seq_len. Ollama's is num_ctx.
	KnobMaxModelLen = "max_model_len"
	// KnobKVOffloadGB is host memory (GiB, the instance's total over its
	// TP ranks) that KV blocks spill to over PCIe: vLLM's native CPU
	// offloading, SGLang's hierarchical cache (kvoffload.go).
	KnobKVOffloadGB = "kv_offload_gb"

	// Knobs only Ollama (llama.cpp) has; see docs/engines.md.

	// KnobFlashAttention is OLLAMA_FLASH_ATTENTION. Ollama v0.5.7 applies
	// it only on Metal, CUDA (driver ≥ 7) and ROCm GPUs; on a CPU it logs
	// "flash attention enabled but not supported by gpu" and runs without.
	KnobFlashAttention = "flash_attention"
	// KnobMaxQueue is OLLAMA_MAX_QUEUE: requests waiting beyond it get 503.
	KnobMaxQueue = "max_queue"
	// KnobNumCtx is PARAMETER num_ctx: the context of each parallel slot
	// (the KV cache holds num_ctx × num_parallel tokens).
	KnobNumCtx = "num_ctx"
	// KnobNumBatch is PARAMETER num_batch: prompt tokens per forward pass.
	KnobNumBatch = "num_batch"
	// KnobNumThread is PARAMETER num_thread: CPU threads of the runner.
	KnobNumThread = "num_thread"
)

// commonKnob reports whether every engine understands k: these choose the
// engine and the checkpoint rather than a flag.
// The gpu knob (space.KnobGPU) picks the node type a trial runs on, which
// no engine flag does: the simulator and the cost metrics read it.
func commonKnob(k string) bool {
	return k == KnobEngine || k == KnobModelVariant || k == space.KnobGPU
}
