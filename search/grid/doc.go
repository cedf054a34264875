// Package grid is the grid sampler: every config of the space
// (search.Grid) in a seeded random order, exhausted once all are told. It
// ignores the feasibility model and the prior, because a grid is asked
// for to measure everything. Of the module it imports only the root
// package search and space: no sibling family, not the registry.
package grid
