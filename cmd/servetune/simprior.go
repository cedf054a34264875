package main

import (
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/lab"
)

// newSimPrior is the study's simulator prior on its cards (nil when
// [study] prior = "none" or the target has no cards).
func newSimPrior(sp *space.Space, cards *sim.Cards) search.Prior {
	if cards == nil {
		cards = sim.DefaultCards()
	}
	return lab.NewSimPrior(sp, cards)
}
