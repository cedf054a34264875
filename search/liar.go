package search

import "github.com/servetune/servetune/space"

// Liar is a model that can take the trials still running into account
// while it proposes (constant liar): each pending config is told as a
// provisional observation for the duration of one Ask, then forgotten.
type Liar interface {
	// Lie adds the provisional observations and returns their undo.
	Lie(pending []space.Config) (undo func())
}
