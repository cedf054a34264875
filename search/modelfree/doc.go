// Package modelfree holds the samplers that bring their own small models
// and no optimisation library: random; greedy, coordinate search as the
// seeds tune by hand; cbo, expected improvement over a random forest with
// a feasibility forest; linear, cbo with a Bayesian linear model; trust,
// trust regions around the incumbent; scoot, a family-covering design
// with a memory-cliff model; and headroom, scoot that repairs an
// out-of-memory trial from the shortfall its message states. They are one
// package because they build on each other (scoot ranks with cbo's and
// trust's models, headroom is scoot). Of the module it imports only the
// root package search and space: no sibling family, not the registry.
package modelfree
