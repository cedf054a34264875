// Package search owns the decisions about what to try next: samplers that
// propose configs from a space given what earlier trials measured (goptuna
// TPE and CMA-ES, seeded random, grid), and the pure functions that rank
// results — feasibility, dominance and Pareto fronts.
//
// It never runs anything and never touches storage: the study loop feeds it
// observations and asks for the next config, so a resumed study rebuilds
// the sampler's memory from its records alone.
package search
