// Package search is the vocabulary of deciding what to try next and the
// pure statistics that rank what was measured: the Sampler interface, its
// Observations and trial states, Build and the Guard that every model
// sampler shares (never a told or pending config, nor one the Feasibility
// model predicts to fail, with refused knobs), checkpoints and the pruning
// rule, Pareto fronts and hypervolume, which configs to measure again and
// what their measurements make (NextConfirm, Central, HalfWidth, PickBest,
// DetectDrift), Spearman's rank correlation, and the words a Prior (the
// simulator, injected by the caller) and the sampler it guides share; the
// guiding itself is search/prior. The samplers live in one package per
// family, each importing of the module only this one and space —
// search/motpe, search/goptuna (tpe, cmaes), search/grid and
// search/modelfree (random, greedy, cbo, linear, trust, scoot, headroom)
// — and search/samplers builds one by name. It never runs anything and
// never touches storage: the study loop feeds it observations and asks
// for the next configs, so a resumed study rebuilds a sampler's memory
// from its records alone.
package search
