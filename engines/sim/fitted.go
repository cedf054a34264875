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
		fWeights:      1.11803,
		fExperts:      1.08216,
		fLinear:       3,
		fExpertLinear: 5.43027,
		fKV:           1.17445,
		fDecodeAttn:   31.3646,
		fAttn:         1.33391,
		fComm:         2.23259,
		fReduce:       1.46238,
		fSkew:         2.19948e-06,
		fStep:         0.00117976,
		fSeq:          1.09158e-05,
		fMultiproc:    4.77615e-05,
		fMoE:          2.44878e-05,
		fLayer:        9.98308e-06,
		fRequest:      0.00803341,
		fPromptK:      0.00125863,
		fFixed:        1,
	}
}

// LOOSpreads are the leave-one-out errors of FittedVLLM's model on the
// calibration set, per metric (log(simulated / measured) over the 21
// stage rows of 13 runs; the half-widths are quantiles, placed for an
// expected coverage of 80% and 95%, of each row's deviation from the
// median of the other runs' errors, with the finite-sample correction
// counted in effective independent rows, fidelity.Spreads): the base of
// every stated interval (uncertainty.go). They reproduce from the leave-one-out report:
//
//	servetune sim check --loo --json --seeds engines/sim/testdata/calibration.toml ../shared/calibration/vllm-0.15.1-h100.json
//
// (fidelity.Spreads of it; engines/sim/testdata/loo-report.json is the
// report they were taken from; TestLOOSpreadsReproduce checks them and,
// when they differ, prints this table from the function).
func LOOSpreads() map[string]Spread {
	return map[string]Spread{
		"e2e_mean":  {Bias: 0.03661, H80: 0.10147, H95: 0.12811},  // 21 rows, 13 runs
		"e2e_p90":   {Bias: 0.04785, H80: 0.11809, H95: 0.13184},  // 21 rows, 13 runs
		"e2e_p99":   {Bias: 0.02581, H80: 0.11775, H95: 0.20924},  // 21 rows, 13 runs
		"ttft_mean": {Bias: 0.01787, H80: 0.17029, H95: 0.62534},  // 21 rows, 13 runs
		"ttft_p90":  {Bias: 0.01458, H80: 0.24870, H95: 0.72114},  // 21 rows, 13 runs
		"ttft_p99":  {Bias: -0.04299, H80: 0.38476, H95: 0.77177}, // 21 rows, 13 runs
		"itl_mean":  {Bias: 0.04926, H80: 0.11208, H95: 0.13030},  // 21 rows, 13 runs
	}
}
