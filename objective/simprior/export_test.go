package simprior

import "github.com/servetune/servetune/search"

// MachineMemoLen is how many predictions on scaled machines p remembers
// (-1: p is not the simulator prior).
func MachineMemoLen(p search.Prior) int {
	switch sp := p.(type) {
	case *simPrior:
		return sp.onMachine.len()
	case screeningSimPrior:
		return sp.onMachine.len()
	}
	return -1
}

// TwinMemoLen is how many predictions p remembers by fingerprint (-1: p
// is not the simulator prior).
func TwinMemoLen(p search.Prior) int {
	switch sp := p.(type) {
	case *simPrior:
		return sp.twins.len()
	case screeningSimPrior:
		return sp.twins.len()
	}
	return -1
}

// IntervalMetric is intervalMetric, for the mapping's table test.
var IntervalMetric = intervalMetric
