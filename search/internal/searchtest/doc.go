// Package searchtest holds the fixtures the sampler families' tests
// share: objectives, small spaces and landscapes, and the loops that run
// a sampler on them. The root package's own tests keep their copies
// (they cannot import this package, which imports the root).
package searchtest
