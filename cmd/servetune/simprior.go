package main

import (
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/lab"
)

// newSimPrior is the study's simulator prior on the embedded cards (nil
// when [study] prior = "none" or the target has no cards).
func newSimPrior(sp *space.Space) search.Prior { return lab.NewSimPrior(sp, sim.DefaultCards()) }
