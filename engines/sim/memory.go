package sim

import (
	"fmt"
	"math"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

const gib = 1 << 30

// memPlan is one GPU's memory at startup, in bytes.
type memPlan struct {
	total, weights, kv, activation, graphs, other float64
	// kvPerToken is cache bytes per token on one GPU of a rank.
	kvPerToken float64
	// kvTokens is how many tokens one rank's cache holds.
	kvTokens int
}

// weightsPerGPU: attention is sharded over the rank's attention TP group
// (replicated by DP attention); the rest of the dense part and the routed
// experts are spread over all tp GPUs (TP-sharded or expert-parallel).
func (s *setup) weightsPerGPU() float64 {
	m := s.model
	attn := m.AttnParamsB / float64(s.attnTP)
	rest := (m.TotalParamsB - m.AttnParamsB) / float64(s.tp)
	w := (attn + rest) * 1e9 * s.weightBytes
	if s.spec.on && s.spec.draftParamsB > 0 {
		w += s.spec.draftParamsB * 1e9 * 2 / float64(s.attnTP)
	}
	return w
}

// kvKnobs reads the knobs that change the KV plan: max_model_len sets
// the planned context as the engine flag does (Launch.MaxModelLen:
// longer than the model's context is refused like vLLM refuses it; -1 is
// vLLM's auto), kv_offload_gb the host pool of offload.go.
func (s *setup) kvKnobs(cfg space.Config) error {
	if cfg.Has("max_model_len") {
		n, ok := cfg.Int("max_model_len")
		if !ok || n == 0 || n < -1 || (n == -1 && !s.eng.autoMaxLen) {
			return invalid(fmt.Sprintf("max_model_len=%v must be a positive length (or -1, vLLM's auto)", cfg["max_model_len"]))
		}
		if err := (Launch{MaxModelLen: int(n)}).apply(s, true, true); err != nil {
			return err
		}
	}
	if cfg.Has("kv_offload_gb") {
		gb, ok := cfg.Float("kv_offload_gb")
		if !ok || gb < 0 || math.IsInf(gb, 0) {
			return invalid(fmt.Sprintf("kv_offload_gb=%v must be GiB ≥ 0", cfg["kv_offload_gb"]))
		}
		s.offloadGiB = gb
	}
	return nil
}

// kvPerTokenGPU: MLA keeps one latent per layer that every attention-TP
// GPU holds whole; GQA/MHA shard KV heads (replicated past kv_heads).
// Sliding-window and linear-attention layers count for what they keep
// of a request of the planned length (ModelCard.kvLayers).
func (s *setup) kvPerTokenGPU() float64 {
	m := s.model
	layers := m.kvLayers(m.MaxContext)
	if m.Attention == "MLA" {
		return layers * float64(m.KVLoraRank+m.RopeDim) * s.kvBytes
	}
	shards := min(s.attnTP, m.KVHeads)
	return 2 * layers * float64(m.KVHeads*m.HeadDim) * s.kvBytes / float64(shards)
}

// activationBytes is the forward-pass peak for one prefill chunk: hidden
// states, attention projections, and the MoE dispatch buffers (top-k
// copies of each token plus gate/up outputs).
func (s *setup) activationBytes() float64 {
	m := s.model
	tokens := s.chunk
	if tokens == 0 {
		tokens = min(m.MaxContext, 32768)
	}
	tokens = max(tokens, 2048)
	perTok := 12*float64(m.Hidden) + 3*float64(m.Heads*max(m.HeadDim, 128))/float64(s.attnTP)
	if m.Experts > 0 {
		perTok += 2 * float64(m.TopK) * float64(m.Hidden+2*m.MoEIntermediate)
	} else {
		perTok += 3 * 3.5 * float64(m.Hidden) / float64(s.tp)
	}
	return 2 * perTok * float64(tokens)
}

// graphBytes follows SGLang's own reservation for CUDA graphs (engines.md
// §2.2): 2 MiB per captured batch size, plus 3 MiB × dp with DP attention
// for the gathered buffers.
func (s *setup) graphBytes() float64 {
	if !s.cudaGraph {
		return 0
	}
	mib := 2 * float64(s.graphBS)
	if s.dpAttn {
		mib += 3 * float64(s.graphBS*s.dp)
	}
	return mib * (1 << 20)
}

// otherBytes: CUDA context, NCCL and cuBLAS workspaces, DeepEP buffers.
func (s *setup) otherBytes() float64 {
	o := 0.5*gib + float64(s.tp)/8*gib
	if s.deepep {
		o += 1.5 * gib
	}
	return o
}

// plan lays out memory the way the imitated engine does and fails like it.
func (s *setup) plan() (memPlan, error) {
	p := memPlan{
		total:      s.gpu.MemGiB * gib,
		weights:    s.weightsPerGPU(),
		activation: s.activationBytes() * s.model.memOverhead(),
		graphs:     s.graphBytes() * s.model.memOverhead(),
		other:      s.otherBytes() * s.model.memOverhead(),
		kvPerToken: s.kvPerTokenGPU(),
	}
	if err := s.eng.rules.kvPool(s, &p); err != nil {
		return p, err
	}
	p.kvTokens = int(p.kv / p.kvPerToken)
	if err := s.eng.rules.checkPlan(s, p); err != nil {
		return p, err
	}
	return p, nil
}

// fractionPool is the KV pool of an engine whose memory fraction bounds
// all it allocates (vLLM's gpu_memory_utilization, TRT-LLM's free
// fraction, Ollama): what budget leaves after weights and activations,
// refused when the weights alone do not fit or nothing is left.
func (s *setup) fractionPool(p *memPlan, budget float64) error {
	if p.weights > p.total-p.other {
		return s.torchOOM(*p, p.total-p.other, p.weights)
	}
	p.kv = budget - p.weights - p.activation
	if p.kv <= 0 {
		return s.oom("No available memory for the cache blocks", *p,
			"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.")
	}
	return nil
}

// defaultFraction is the memory fraction of the engines that take 0.9
// when the user sets none.
func (s *setup) defaultFraction() {
	if !s.memFracSet {
		s.memFrac = 0.9
	}
}

func (s *setup) oom(msg string, p memPlan, last string) error {
	lines := append(s.eng.rules.planLog(s, p), last)
	lines = append(lines, s.eng.rules.initFailed()...)
	return &engines.Failure{Class: engines.OOM, Message: msg, Lines: lines}
}

// torchOOM is PyTorch's allocator failure, as every engine surfaces it.
func (s *setup) torchOOM(p memPlan, free, want float64) error {
	free = max(free, 0)
	msg := fmt.Sprintf("CUDA out of memory. Tried to allocate %.2f GiB. GPU 0 has a total capacity of %.2f GiB of which %.2f MiB is free.",
		want/gib, p.total/gib, free/(1<<20))
	return s.oom(msg, p, "torch.OutOfMemoryError: "+msg)
}

// planLog is what an engine without a memory report of its own prints.
func genericPlanLog(p memPlan) []string {
	return []string{fmt.Sprintf("weights %.2f GiB, KV cache %.2f GiB", p.weights/gib, p.kv/gib)}
}
