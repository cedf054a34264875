package sim

import "github.com/servetune/servetune/engines"

// ollamaRules are Ollama's decisions: llama.cpp on GGUF, a few parallel
// slots, one scheduler.
type ollamaRules struct{}

func ollamaModel() engineModel {
	return engineModel{
		memEff: 0.55, computeEff: 0.35, stepOverhead: 3e-3, perSeq: 20e-6, eagerPerLayer: 30e-6,
		requestOverhead: 20e-3, mlaPrefill: 2, mixed: false, reserve: 1.0, graphs: false, prefixCacheDefault: true, loadGBs: 1.0,
		name: engines.Ollama, rules: ollamaRules{},
		lockstepMoEDP: true, oneQueue: true,
	}
}

// defaultMaxRunning: OLLAMA_NUM_PARALLEL's default.
func (ollamaRules) defaultMaxRunning(*setup) int { return 4 }

func (ollamaRules) defaultGraphBS(*setup) int { return 512 }

func (ollamaRules) defaultChunk(*setup) int { return 2048 }

func (ollamaRules) kvPool(s *setup, p *memPlan) error {
	s.defaultFraction()
	return s.fractionPool(p, s.memFrac*p.total)
}

func (ollamaRules) checkPlan(*setup, memPlan) error { return nil }

func (ollamaRules) planLog(_ *setup, p memPlan) []string { return genericPlanLog(p) }

func (ollamaRules) initFailed() []string { return nil }
