package sim

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines"
)

// vllmRules are vLLM's (V1 engine) decisions; its step model is refitted
// to the calibration set (vllmperf.go).
type vllmRules struct{}

func vllmModel() engineModel {
	return engineModel{
		memEff: 0.86, computeEff: 0.30, stepOverhead: 2.4e-3, perSeq: 6e-6, eagerPerLayer: 90e-6,
		requestOverhead: 45e-3, mlaPrefill: 6, mixed: true, reserve: 0, graphs: true, prefixCacheDefault: true, loadGBs: 2.0,
		name: engines.VLLM, rules: vllmRules{},
		refitted: true, asyncScheduling: true, throughputMode: true, autoMaxLen: true, batchedTokensCheck: true,
		lockstepMoEDP: true,
		// vLLM's disaggregation proxy (Python) also forwards the decode
		// request once prefill is done.
		router: pdRouting{service: 1e-3, handoff: true, ok: true},
	}
}

func (vllmRules) defaultMaxRunning(s *setup) int {
	if s.gpu.MemGiB >= 70 {
		return 1024
	}
	return 256
}

func (vllmRules) defaultGraphBS(*setup) int { return 512 }

func (vllmRules) defaultChunk(s *setup) int {
	if s.gpu.MemGiB >= 70 && !strings.Contains(strings.ToLower(s.gpu.Name), "a100") {
		return 8192
	}
	return 2048
}

// kvPool: gpu_memory_utilization bounds everything, and what it leaves
// must hold the CUDA graphs and the rest.
func (vllmRules) kvPool(s *setup, p *memPlan) error {
	s.defaultFraction()
	budget := s.memFrac * p.total
	if err := s.fractionPool(p, budget); err != nil {
		return err
	}
	if p.total-budget < p.graphs+p.other {
		return s.torchOOM(*p, p.total-budget-p.other, p.graphs)
	}
	return nil
}

// checkPlan: one request of the planned context must fit, unless
// max_model_len is auto.
func (vllmRules) checkPlan(s *setup, p memPlan) error {
	if s.autoLen {
		return nil
	}
	maxLen := s.model.MaxContext
	if need := float64(maxLen) * p.kvPerToken; need > p.kv {
		msg := fmt.Sprintf("To serve at least one request with the model's max seq len (%d), (%.2f GiB KV cache is needed, which is larger than the available KV cache memory (%.2f GiB). Based on the available memory, the estimated maximum model length is %d.",
			maxLen, need/gib, p.kv/gib, p.kvTokens)
		return s.oom(msg, p, "ValueError: "+msg)
	}
	return nil
}

func (vllmRules) planLog(_ *setup, p memPlan) []string {
	return []string{
		fmt.Sprintf("Model loading took %.4f GiB memory", p.weights/gib),
		fmt.Sprintf("Available KV cache memory: %.2f GiB", p.kv/gib),
	}
}

func (vllmRules) initFailed() []string {
	return []string{"RuntimeError: Engine core initialization failed. See root cause above."}
}
