package sim

import "regexp"

// Which spread a study's metric reads: the metric names of bench's table
// mapped onto LOOSpreads' rows. The objective prior states its intervals
// through it, and a simulated trial of a real runner's study
// (MetricIntervals) too.

// stagePrefix is the "stageN_" of a load stage's metric: the simulator's
// spreads are measured per stage row, so a stage's metric maps as the
// whole run's does.
var stagePrefix = regexp.MustCompile(`^stage[0-9]+_`)

// metricSpreads maps an objective metric to the simulator's interval
// metric (sim.LOOSpreads). The spreads are multiplicative, so a metric in
// seconds maps as its milliseconds do. TPOT maps to ITL: both are the
// decode step's time per token, and the calibration set measures ITL
// only. Throughputs are absent: at a fixed offered load they follow the
// load, not the latencies, so an interval derived from e2e or ITL would
// claim what the leave-one-out residuals never measured.
var metricSpreads = map[string]string{
	"mean_ttft_ms": "ttft_mean", "p90_ttft_ms": "ttft_p90", "p99_ttft_ms": "ttft_p99",
	"mean_e2e_ms": "e2e_mean", "p90_e2e_ms": "e2e_p90", "p99_e2e_ms": "e2e_p99",
	"mean_e2e_s": "e2e_mean", "p90_e2e_s": "e2e_p90", "p99_e2e_s": "e2e_p99",
	"mean_itl_ms": "itl_mean", "mean_tpot_ms": "itl_mean",
}

// IntervalMetric is the simulator's interval metric (LOOSpreads) for a
// study's metric name; false when the simulator states none for it.
func IntervalMetric(objective string) (string, bool) {
	m, ok := metricSpreads[stagePrefix.ReplaceAllString(objective, "")]
	return m, ok
}

// MetricIntervals are the intervals u states around one profile's
// simulated metrics (bench's names), for each metric that has a spread
// and a positive finite value; nil when none has.
func (u Uncertainty) MetricIntervals(metrics map[string]float64) map[string]Interval {
	var out map[string]Interval
	for name, v := range metrics {
		m, ok := IntervalMetric(name)
		if !ok {
			continue
		}
		if iv, ok := u.Interval(m, v); ok {
			if out == nil {
				out = map[string]Interval{}
			}
			out[name] = iv
		}
	}
	return out
}
