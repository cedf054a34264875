package simprior

import (
	"regexp"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// stagePrefix is the "stageN_" of a load stage's metric: the simulator's
// spreads are measured per stage row, so a stage's metric maps as the
// whole run's does.
var stagePrefix = regexp.MustCompile(`^stage[0-9]+_`)

// intervalMetrics maps an objective metric to the simulator's interval
// metric (sim.LOOSpreads). The spreads are multiplicative, so a metric in
// seconds maps as its milliseconds do. TPOT maps to ITL: both are the
// decode step's time per token, and the calibration set measures ITL
// only. Throughputs are absent: at a fixed offered load they follow the
// load, not the latencies, so an interval derived from e2e or ITL would
// claim what the leave-one-out residuals never measured.
var intervalMetrics = map[string]string{
	"mean_ttft_ms": "ttft_mean", "p90_ttft_ms": "ttft_p90", "p99_ttft_ms": "ttft_p99",
	"mean_e2e_ms": "e2e_mean", "p90_e2e_ms": "e2e_p90", "p99_e2e_ms": "e2e_p99",
	"mean_e2e_s": "e2e_mean", "p90_e2e_s": "e2e_p90", "p99_e2e_s": "e2e_p99",
	"mean_itl_ms": "itl_mean", "mean_tpot_ms": "itl_mean",
}

// intervalMetric is the simulator's interval metric for an objective
// metric; false when the simulator states none for it.
func intervalMetric(objective string) (string, bool) {
	m, ok := intervalMetrics[stagePrefix.ReplaceAllString(objective, "")]
	return m, ok
}

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
