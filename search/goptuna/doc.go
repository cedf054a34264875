// Package goptuna holds the samplers that goptuna's algorithms drive,
// both single-objective: tpe (goptuna's TPE, knob by knob) and cmaes
// (CMA-ES over the numeric knobs that always exist, goptuna's TPE for the
// rest). One study model behind the root's guard maps a space's knobs to
// goptuna distributions, seeds the start-up itself, tells infeasible
// trials as worse than anything measured, and lies pending trials to the
// TPE through a storage that can retract them. Of the module it imports
// only the root package search and space: no sibling family, not the
// registry.
package goptuna
