// Package space owns the search-space file: the TOML a user writes to
// declare one study (target, objectives, SLO constraints, benchmark
// profiles, knobs with their domains and `when` conditions, rules and the
// baseline), its validation into one error that lists every problem with
// file:line:key, and the pure operations on the result — which knobs are
// active in a config, which rule a config breaks, random sampling, grids.
//
// It knows nothing about engines or benchmarks beyond what Options inject,
// so that data flows one way: space → search → objective → studies.
package space
