package sim

// FittedVLLM is the vLLM step-time model's coefficients, fitted to the 13
// real vLLM v0.15.1 runs of /work/shared/calibration (all of them; the
// leave-one-out figures of docs/benchmarks.md refit without each run):
//
//	servetune sim fit /work/shared/calibration/vllm-0.15.1-h100.json
//
// Each is an inverse efficiency (weights, experts, linear, kv, attn, comm:
// seconds per second of datasheet-peak work) or a time per event
// (seconds); docs/sim.md says what each term covers.
func FittedVLLM() Coefficients {
	return Coefficients{
		fWeights:      1.13801,
		fExperts:      1.57329,
		fLinear:       1.40375,
		fExpertLinear: 10.8607,
		fKV:           1.18724,
		fAttn:         1.33391,
		fComm:         1.95671,
		fReduce:       5.70762e-06,
		fStep:         0.00140236,
		fSeq:          1.00009e-05,
		fMultiproc:    0.000289699,
		fRequest:      0.00914901,
		fPromptK:      0.00111607,
		fFixed:        1,
	}
}
