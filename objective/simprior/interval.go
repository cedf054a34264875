package simprior

import (
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// intervalMetric is the simulator's interval metric for an objective
// metric (sim.IntervalMetric); false when it states none for it.
func intervalMetric(objective string) (string, bool) { return sim.IntervalMetric(objective) }

// Intervals are the simulator's stated intervals around c's predicted
// objective values (search.IntervalPrior): nil for an objective it states
// none for, nil in all when it states none or cannot resolve c.
func (p *simPrior) Intervals(c space.Config, values []float64) []*search.Interval {
	u, err := p.sim.Uncertainty(c, p.target)
	if err != nil || len(values) != len(p.sp.Objectives) {
		return nil
	}
	out := make([]*search.Interval, len(values))
	stated := false
	for i, o := range p.sp.Objectives {
		m, ok := intervalMetric(o.Metric)
		if !ok {
			continue
		}
		if iv, ok := u.Interval(m, values[i]); ok {
			out[i] = &search.Interval{Lo80: iv.Lo80, Hi80: iv.Hi80, Lo95: iv.Lo95, Hi95: iv.Hi95}
			stated = true
		}
	}
	if !stated {
		return nil
	}
	return out
}
