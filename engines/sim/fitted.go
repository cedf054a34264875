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
		fWeights:      1.15751,
		fExperts:      1.10824,
		fLinear:       3,
		fExpertLinear: 5.34847,
		fKV:           1.26535,
		fAttn:         1.33391,
		fComm:         2.21914,
		fReduce:       1.45598,
		fSkew:         2.19131e-06,
		fStep:         0.00108963,
		fSeq:          1.13298e-05,
		fMultiproc:    4.77845e-05,
		fMoE:          2.42889e-05,
		fLayer:        9.7435e-06,
		fRequest:      0.00807745,
		fPromptK:      0.00126758,
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
		"e2e_mean":  {Bias: 0.04525, H80: 0.10477, H95: 0.13627},  // 21 rows, 13 runs
		"e2e_p90":   {Bias: 0.05029, H80: 0.10989, H95: 0.16156},  // 21 rows, 13 runs
		"e2e_p99":   {Bias: 0.02838, H80: 0.12409, H95: 0.18714},  // 21 rows, 13 runs
		"ttft_mean": {Bias: 0.01197, H80: 0.16687, H95: 0.63219},  // 21 rows, 13 runs
		"ttft_p90":  {Bias: 0.01085, H80: 0.24854, H95: 0.72375},  // 21 rows, 13 runs
		"ttft_p99":  {Bias: -0.05013, H80: 0.39674, H95: 0.75750}, // 21 rows, 13 runs
		"itl_mean":  {Bias: 0.05130, H80: 0.12130, H95: 0.15552},  // 21 rows, 13 runs
	}
}
