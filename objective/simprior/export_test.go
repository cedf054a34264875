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
