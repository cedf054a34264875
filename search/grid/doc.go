// Package grid is the grid sampler: every config of the space
// (search.Grid) in a seeded random order, exhausted once all are told. It
// ignores the feasibility model and the prior, because a grid is asked
// for to measure everything. It imports only the root package search.
package grid
