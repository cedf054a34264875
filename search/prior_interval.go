package search

import "github.com/servetune/servetune/space"

// Interval bounds a predicted objective value: the prior states that 80%
// (95%) of measurements fall within [Lo80, Hi80] ([Lo95, Hi95]).
type Interval struct {
	Lo80, Hi80, Lo95, Hi95 float64
}

// IntervalPrior is a Prior that states how far to trust its predictions
// (the simulator's leave-one-out spread, issue 45). Intervals returns one
// entry per objective (space order), nil where the prior states none for
// that objective; nil when it states none at all.
type IntervalPrior interface {
	Intervals(c space.Config, values []float64) []*Interval
}

// PriorIntervals are p's intervals around c's predicted values: asked of
// p or of the first prior beneath its wrappers (Unwrap) that states them;
// nil when none does or there are no values.
func PriorIntervals(p Prior, c space.Config, values []float64) []*Interval {
	for p != nil && len(values) > 0 {
		if ip, ok := p.(IntervalPrior); ok {
			return ip.Intervals(c, values)
		}
		u, ok := p.(interface{ Unwrap() Prior })
		if !ok {
			return nil
		}
		p = u.Unwrap()
	}
	return nil
}
