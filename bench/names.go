package bench

import "regexp"

var metricName = regexp.MustCompile(`^((mean|median|std|p[0-9]+(\.[0-9]+)?)_(ttft|tpot|itl|e2e)_ms|(mean|median|p[0-9]+(\.[0-9]+)?)_e2e_s)$`)

var plainMetrics = map[string]bool{
	"completed": true, "failed": true, "duration_s": true, "total_input_tokens": true,
	"total_output_tokens": true, "request_tps": true, "output_tps": true, "total_tps": true,
	"peak_output_tps": true, "peak_concurrency": true, "goodput_rps": true,
	"slo_attainment": true, "max_rate_under_slo": true, "answer_accuracy": true, "baseline_agreement": true,
}

// KnownMetric reports whether name is a metric Metrics.Values can produce
// (percentiles other than the defaults are produced when requested).
func KnownMetric(name string) bool { return plainMetrics[name] || metricName.MatchString(name) }
