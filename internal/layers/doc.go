// Package layers holds the module's layering test and nothing else: one
// table of which package may import which — the top-level order (the
// internal leaves, bench, cost, space, search, engines, objective,
// studies, cmd) and the narrower rules inside search and for the leaves —
// checked against the import graph read from the source tree, so an
// arrow pointing up, or one between sibling sampler families, fails a
// test instead of waiting for a review to notice it.
package layers
