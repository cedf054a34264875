// Package fidelity replays real engine measurements through the simulator:
// it reads a measurements file (the calibration set's format, docs/sim.md),
// turns each run's serving config and inference-perf workload into a
// simulator config, target and profile, and compares what the simulator
// predicts with what was measured — per run, per stage and overall (MAPE),
// with the queue saturations the real server did not have and the rank
// correlation of one-knob groups. It also fits the vLLM step model's
// coefficients to such a file, in-sample or leave-one-out.
package fidelity
