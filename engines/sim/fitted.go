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
		fWeights:      1.24831,
		fExperts:      1.38431,
		fLinear:       3,
		fExpertLinear: 5.16173,
		fKV:           1.28046,
		fAttn:         1.33391,
		fComm:         3.51178,
		fReduce:       8.59572e-06,
		fStep:         0.000979508,
		fSeq:          1.19714e-05,
		fMultiproc:    0.000231843,
		fMoE:          2.59336e-05,
		fRequest:      0.00792187,
		fPromptK:      0.00127053,
		fFixed:        1,
	}
}
