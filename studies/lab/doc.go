// Package lab measures servetune's samplers against each other on
// simulator landscapes with the simulator's own noise — best value
// against trials and GPU-hours, the gap to the true optimum and front
// (every config simulated once, noiselessly, and cached), what pruning
// and the prior save, the prior judged against other cards than its own
// — for `servetune lab`, whose figures are in docs/benchmarks.md; with
// Options.Trace each run also carries its trials, measured beside their
// true and predicted values, to read where a seed's study went.
package lab
