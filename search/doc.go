// Package search owns the decisions about what to try next and the pure
// functions that rank results.
//
// Samplers propose configs from a space given what earlier trials
// measured. Each is one implementation of Sampler in its own file: motpe
// (servetune's multi-objective TPE, the default), tpe and cmaes (goptuna,
// used by these two only), cbo, linear and trust (model-free, with a
// feasibility forest), random, grid and greedy (coordinate search).
// NewSampler builds one by name; CheckSampler says whether a name exists
// and can serve a study's objectives. What every model sampler shares —
// never re-proposing a told or pending config, avoiding configs the
// Feasibility model predicts to fail, random draws when the model is stuck
// — is guard, in one place. Ask takes a batch size and the configs still
// running, so several workers can share one sampler. A Prior (the
// simulator, injected by the caller) guides a sampler through
// Options.Prior and Options.Guide; the guiding itself is search/prior.
//
// Ranking: feasibility-first dominance, Pareto fronts, hypervolume and
// noise ties; PruneRule decides whether a running trial can still win.
//
// It never runs anything and never touches storage: the study loop feeds
// it observations and asks for the next configs, so a resumed study
// rebuilds the sampler's memory from its records alone.
package search
