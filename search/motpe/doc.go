// Package motpe is servetune's multi-objective Tree-structured Parzen
// Estimator, the default sampler for any number of objectives (the
// "motpe" sampler): one Parzen estimator per knob over the trials where it
// was active, a good set ranked feasibility-first and weighted by
// hypervolume contribution, multivariate candidates scored by l(x)/g(x), a
// bounded window of observations, and pending trials told as known-bad
// lies for one Ask. Of the module it imports only the root package search
// and space: no sibling family, not the registry.
package motpe
