package sim

// FittedVLLM is the vLLM step-time model's coefficients, fitted to the 13
// real vLLM v0.15.1 runs of /work/shared/calibration (all of them; the
// leave-one-out figures of docs/benchmarks.md refit without each run):
//
//	servetune sim fit --seeds engines/sim/testdata/calibration.toml ../shared/calibration/vllm-0.15.1-h100.json
//
// Each is an inverse efficiency (weights, experts, linear, kv, attn, comm:
// seconds per second of datasheet-peak work) or a time per event
// (seconds); docs/sim.md says what each term covers.
func FittedVLLM() Coefficients {
	return Coefficients{
		fWeights:      1.12941,
		fExperts:      1.37185,
		fLinear:       3,
		fExpertLinear: 5.27808,
		fKV:           1.26153,
		fAttn:         1.33391,
		fComm:         2.94222,
		fReduce:       7.30402e-06,
		fStep:         0.00152482,
		fSeq:          1.03738e-05,
		fMultiproc:    4.74621e-05,
		fMoE:          2.22632e-05,
		fRequest:      0.00813124,
		fPromptK:      0.00126507,
		fFixed:        1,
	}
}
