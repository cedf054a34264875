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
		fWeights:      1.16995,
		fExperts:      1.37913,
		fLinear:       3,
		fExpertLinear: 5.44046,
		fKV:           1.2619,
		fAttn:         1.33391,
		fComm:         2.38875,
		fReduce:       1.54391,
		fStep:         0.00104509,
		fSeq:          1.1335e-05,
		fMultiproc:    4.82407e-05,
		fMoE:          2.46196e-05,
		fLayer:        9.99589e-06,
		fRequest:      0.00811558,
		fPromptK:      0.00126434,
		fFixed:        1,
	}
}

// LOOSpreads are the leave-one-out errors of FittedVLLM's model on the
// calibration set, per metric (log(simulated / measured) over the 21
// stage rows of 13 runs; the half-widths are conformal quantiles with the
// finite-sample correction counted in runs, fidelity.Spreads): the base
// of every stated interval (uncertainty.go). They reproduce from the
// leave-one-out report:
//
//	servetune sim check --loo --json --seeds engines/sim/testdata/calibration.toml ../shared/calibration/vllm-0.15.1-h100.json
//
// (fidelity.Spreads of it; engines/sim/testdata/loo-report.json is the
// report they were taken from, TestLOOSpreadsReproduce checks them).
func LOOSpreads() map[string]Spread {
	return map[string]Spread{
		"e2e_mean":  {Bias: 0.04726, H80: 0.11283, H95: 0.13577},  // 21 rows, 13 runs
		"e2e_p90":   {Bias: 0.05629, H80: 0.13417, H95: 0.17695},  // 21 rows, 13 runs
		"e2e_p99":   {Bias: 0.03306, H80: 0.17894, H95: 0.18941},  // 21 rows, 13 runs
		"ttft_mean": {Bias: 0.01261, H80: 0.18897, H95: 0.64180},  // 21 rows, 13 runs
		"ttft_p90":  {Bias: 0.00942, H80: 0.25183, H95: 0.73766},  // 21 rows, 13 runs
		"ttft_p99":  {Bias: -0.05276, H80: 0.42000, H95: 0.77014}, // 21 rows, 13 runs
		"itl_mean":  {Bias: 0.05679, H80: 0.12961, H95: 0.15877},  // 21 rows, 13 runs
	}
}
