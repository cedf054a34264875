package bench

import (
	"regexp"
	"strings"
)

var metricName = regexp.MustCompile(`^((mean|median|std|p[0-9]+(\.[0-9]+)?)_(ttft|tpot|itl|e2e)_ms|(mean|median|p[0-9]+(\.[0-9]+)?)_e2e_s)$`)

var plainMetrics = map[string]bool{
	"completed": true, "failed": true, "duration_s": true, "total_input_tokens": true,
	"total_output_tokens": true, "request_tps": true, "output_tps": true, "total_tps": true,
	"peak_output_tps": true, "peak_concurrency": true, "goodput_rps": true,
	"slo_attainment": true, "max_rate_under_slo": true, "answer_accuracy": true, "baseline_agreement": true,
}

// Cost metrics (package cost computes them from a trial's GPUs, the price
// of its GPU type in the user's price file and its throughput). They are
// not in KnownMetric: nothing yet gives a trial a price, and an objective
// naming one would be undefined on every trial.
const (
	MetricUSDPerHour       = "usd_per_hour"
	MetricUSDPerMTokOutput = "usd_per_mtok_output"
	MetricUSDPerMTokTotal  = "usd_per_mtok_total"
)

// CostMetric reports whether name is one of the cost metrics.
func CostMetric(name string) bool {
	return name == MetricUSDPerHour || name == MetricUSDPerMTokOutput || name == MetricUSDPerMTokTotal
}

var stagePrefix = regexp.MustCompile(`^stage[0-9]+_`)

// KnownMetric reports whether name is a metric Metrics.Values can produce
// (percentiles other than the defaults are produced when requested; a
// stageK_ prefix names the metric of stage K of a multi-stage profile).
func KnownMetric(name string) bool {
	if loc := stagePrefix.FindStringIndex(name); loc != nil {
		name = name[loc[1]:]
		if strings.HasPrefix(name, "stage") {
			return false
		}
	}
	return plainMetrics[name] || metricName.MatchString(name)
}
