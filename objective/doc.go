// Package objective owns one trial: given a config, the target and the
// benchmark profiles, measure it — on the built-in simulator in-process,
// or by launching the real engine, waiting until it is ready, benchmarking
// every profile and tearing it down — and return the metrics per profile,
// the checkpoints it reported and the GPU-seconds spent, or a classified
// failure. A profile with search_rate is measured by a search for the
// highest request rate within its SLO on the one running engine
// (ratesearch.go: the step schedule is a pure decision, reported as
// checkpoints for pruning); a quality profile's replies are scored and
// returned for the study to keep.
//
// Runner is the seam between the study loop and the ways of measuring;
// the loop never knows which one it drives. Runners measure trials side
// by side when the loop runs several workers; ProcessRunner then relies
// on each trial's own devices, directory and port, and keeps at most one
// warm engine per device set (process_warm.go). Measure wraps any Runner with
// the trial's time limit and the judgement of its benchmark (too many
// failed requests fail the trial). Runners report each benchmark
// checkpoint through Trial.Report to the trial's Judge, a pure function
// the study supplies; the verdict comes back in the Result, as a value.
package objective
