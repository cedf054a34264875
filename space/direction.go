package space

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/bench"
)

// directions refuses objectives and constraints that point a metric the
// wrong way: a throughput minimised or a latency maximised searches for
// the worst config, and a latency bounded from below (p99_ttft_ms >= 0)
// or a throughput from above is no SLO — it holds for every trial or asks
// them to be slow. Both loaded and ran a study that meant nothing. A
// duration bounded at or below zero can never hold: every real request
// takes time.
func (d *decoder) directions(s *Space) {
	for i, o := range s.Objectives {
		m, ok := bench.MetricOf(o.Metric)
		if !ok || m.Better == bench.Neither {
			continue
		}
		if want := wantDirection(m.Better); o.Direction != want {
			d.fail(fmt.Sprintf("objectives[%d].direction", i), "%s is better %s: %q would search for the worst config; use direction = %q",
				o.Metric, betterWord(m.Better), o.Direction, want)
		}
	}
	for i, c := range s.Constraints {
		m, ok := bench.MetricOf(c.Metric)
		if !ok {
			continue
		}
		if why := constraintDirection(c, m); why != "" {
			d.fail(fmt.Sprintf("constraints[%d].expr", i), "%q %s", c.Src, why)
		}
	}
}

// constraintDirection says why c cannot be a service level on metric m,
// "" when it can.
func constraintDirection(c Constraint, m bench.Metric) string {
	upper := strings.HasPrefix(c.Op, "<")
	switch {
	case m.Better == bench.Lower && !upper:
		return fmt.Sprintf("bounds %s from below, but it is better lower: an SLO caps it (%s <= N)", c.Metric, c.Metric)
	case m.Better == bench.Higher && upper:
		return fmt.Sprintf("bounds %s from above, but it is better higher: an SLO floors it (%s >= N)", c.Metric, c.Metric)
	case upper && !c.Relative && c.Bound <= 0 && duration(m):
		return fmt.Sprintf("can never hold: %s is a duration, above 0 for every request", c.Metric)
	}
	return ""
}

// duration reports whether m is a statistic of request durations (TTFT,
// ITL, TPOT, end-to-end), which no request makes zero; a spread (std_) can be.
func duration(m bench.Metric) bool {
	return (m.Unit == "ms" || m.Unit == "s") && !strings.HasPrefix(bench.BaseMetric(m.Name), "std_")
}

func wantDirection(b bench.Direction) Direction {
	if b == bench.Higher {
		return Maximize
	}
	return Minimize
}

func betterWord(b bench.Direction) string {
	if b == bench.Higher {
		return "higher"
	}
	return "lower"
}
