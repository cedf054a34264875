package sim

// FittedVLLM is the vLLM step-time model's coefficients, fitted to the 13
// real vLLM v0.15.1 runs of /work/shared/calibration (all of them; the
// leave-one-out figures of docs/benchmarks.md refit without each run):
//
//	servetune sim fit --seeds engines/sim/testdata/calibration.toml ../shared/calibration/vllm-0.15.1-h100.json
//
// Each is an inverse efficiency (weights, experts, linear, kv, attn, comm:
// seconds per second of datasheet-peak work, of a BF16 kernel on an H100:
// other dtypes and generations scale the work by measured ratios,
// dtypekernel.go and gpugen.go) or a time per event (seconds);
// docs/sim.md says what each term covers.
func FittedVLLM() Coefficients {
	return Coefficients{
		fWeights:      1.11902,
		fExperts:      1.08216,
		fLinear:       3,
		fExpertLinear: 5.10332,
		fKV:           1.11593,
		fDecodeAttn:   46.3387,
		fAttn:         1.33391,
		fComm:         2.10318,
		fReduce:       1.37027,
		fSkew:         2.16394e-06,
		fStep:         0.00115905,
		fSeq:          1.0555e-05,
		fMultiproc:    4.78554e-05,
		fMoE:          2.24426e-05,
		fLayer:        9.81569e-06,
		fRequest:      0.00805536,
		fPromptK:      0.0012527,
		fFixed:        1,
	}
}

// LOOSpreads are the leave-one-out errors of FittedVLLM's model on the
// calibration set, per metric (log(simulated / measured) over the 21
// stage rows of 13 runs; the half-widths are quantiles placed for an
// expected coverage of 80% and 95%, with the finite-sample correction
// counted in runs, fidelity.Spreads): the base of every stated interval
// (uncertainty.go). They reproduce from the leave-one-out report:
//
//	servetune sim check --loo --json --seeds engines/sim/testdata/calibration.toml ../shared/calibration/vllm-0.15.1-h100.json
//
// (fidelity.Spreads of it; engines/sim/testdata/loo-report.json is the
// report they were taken from; TestLOOSpreadsReproduce checks them and,
// when they differ, prints this table from the function).
func LOOSpreads() map[string]Spread {
	return map[string]Spread{
		"e2e_mean":  {Bias: 0.03001, H80: 0.08312, H95: 0.11331},  // 21 rows, 13 runs
		"e2e_p90":   {Bias: 0.04425, H80: 0.09488, H95: 0.10958},  // 21 rows, 13 runs
		"e2e_p99":   {Bias: 0.02292, H80: 0.10926, H95: 0.16421},  // 21 rows, 13 runs
		"ttft_mean": {Bias: 0.02224, H80: 0.14943, H95: 0.60463},  // 21 rows, 13 runs
		"ttft_p90":  {Bias: 0.02086, H80: 0.26189, H95: 0.70328},  // 21 rows, 13 runs
		"ttft_p99":  {Bias: -0.04892, H80: 0.38747, H95: 0.71792}, // 21 rows, 13 runs
		"itl_mean":  {Bias: 0.04320, H80: 0.10409, H95: 0.10959},  // 21 rows, 13 runs
	}
}
