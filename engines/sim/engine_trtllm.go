package sim

import "github.com/servetune/servetune/engines"

// trtllmRules are TensorRT-LLM's decisions (PyTorch backend).
type trtllmRules struct{}

func trtllmModel() engineModel {
	return engineModel{
		memEff: 0.84, computeEff: 0.36, stepOverhead: 2.2e-3, perSeq: 5e-6, eagerPerLayer: 70e-6,
		requestOverhead: 35e-3, mlaPrefill: 2, mixed: true, reserve: 1.0, graphs: true, prefixCacheDefault: false, loadGBs: 1.5,
		name: engines.TRTLLM, rules: trtllmRules{},
		lockstepMoEDP: true,
	}
}

func (trtllmRules) defaultMaxRunning(*setup) int { return 2048 }

func (trtllmRules) defaultGraphBS(*setup) int { return 128 }

func (trtllmRules) defaultChunk(*setup) int { return 8192 }

// kvPool: free_gpu_memory_fraction applies to what is free after load.
func (trtllmRules) kvPool(s *setup, p *memPlan) error {
	s.defaultFraction()
	budget := p.weights + p.activation + s.memFrac*(p.total-p.weights-p.activation-p.other-p.graphs)
	return s.fractionPool(p, budget)
}

func (trtllmRules) checkPlan(*setup, memPlan) error { return nil }

func (trtllmRules) planLog(_ *setup, p memPlan) []string { return genericPlanLog(p) }

func (trtllmRules) initFailed() []string { return nil }
