// Package lab measures servetune's samplers against each other on
// simulator landscapes — the seeds' GLM-5.2-FP8 / 8×H200 and Qwen3-8B /
// H100 spaces — with measurement noise: best value against trials and
// GPU-hours, the gap to the true optimum (found by simulating every point
// of the space), hypervolume against the true Pareto front, and the
// GPU-seconds that pruning and infeasibility learning save. It backs the
// `servetune lab` command; its figures are in docs/benchmarks.md.
//
// Every config is simulated once, noiselessly, and cached; each trial then
// draws the simulator's own noise model — one log-normal factor on the
// engine's step times — for its (seed, trial), so twenty seeds of five
// samplers cost little more than the exhaustive grid.
//
// It measures the simulator prior (objective/simprior) honestly: the truth's oracle may simulate other cards
// (--reality-cards; realities/ holds an extreme perturbation and a
// different GPU, or one perturbed reality per seed) while the prior always
// simulates the built-in cards, screening on sim.ScreeningProfiles as
// `servetune run` does. Oracles can persist their outcomes (Persist,
// Restore; `servetune lab --cache`) so a per-seed reality's exhaustive
// grid is simulated once.
package lab
