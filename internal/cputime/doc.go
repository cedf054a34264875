// Package cputime reads the CPU time and peak memory of this process, for
// the benchmarks that report CPU instead of wall time: on a machine shared
// with other work, wall time counts the other work's turns too.
package cputime
