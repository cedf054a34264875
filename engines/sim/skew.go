package sim

// Skew moves the engines' calibrated behaviour away from the fit, so a
// test bed (studies/lab) can build realities the simulator prior does not
// share: kernels, per-step CPU work (what chunked prefill multiplies),
// CUDA-graph savings and prefill attention. A nil Skew, or a factor of 0
// or 1, changes nothing; multiplying by exactly 1 keeps every simulated
// number bit-identical.
type Skew struct {
	// Kernel multiplies each engine's kernel time (by engine name): the
	// vLLM model's inverse-efficiency coefficients, the other engines'
	// step scale.
	Kernel map[string]float64
	// StepCPU multiplies the per-step and per-sequence CPU time; a smaller
	// prefill chunk runs more steps, so it moves chunked prefill's cost.
	StepCPU float64
	// Eager multiplies the launch overhead of steps not replayed from a
	// CUDA graph: the graphs' saving.
	Eager float64
	// Prefill multiplies prefill attention (vLLM's coefficient, and MLA
	// prefill on every engine).
	Prefill float64
}

// apply scales the resolved setup's engine model and coefficients.
func (k *Skew) apply(s *setup) {
	if k == nil {
		return
	}
	kern := orOne(k.Kernel[s.engine])
	if s.eng.refitted {
		for _, i := range []int{fWeights, fExperts, fLinear, fExpertLinear, fKV, fComm} {
			s.coef[i] *= kern
		}
		s.coef[fStep] *= orOne(k.StepCPU)
		s.coef[fSeq] *= orOne(k.StepCPU)
		s.coef[fAttn] *= orOne(k.Prefill)
	} else {
		s.eng.stepScale = orOne(s.eng.stepScale) * kern
	}
	s.eng.stepOverhead *= orOne(k.StepCPU)
	s.eng.perSeq *= orOne(k.StepCPU)
	s.eng.eagerPerLayer *= orOne(k.Eager)
	s.eng.mlaPrefill *= orOne(k.Prefill)
}
