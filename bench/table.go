package bench

import (
	"slices"
	"strings"
)

// The metric table: every metric a trial can report, once, with its
// unit, which way is better and the package that produces it. The space
// validator (what a metric needs), the objective (the rate search's
// name), the report (column units and directions) and calibration (the
// metrics it fits) read their names from here; k6 registers each
// metric once in the same way. TestMetricTableIsWhatBenchProduces holds
// the table and Metrics.Values, Quality and WithPerGPU to each other.

// Direction says which way a metric is better.
type Direction int

const (
	// Neither: a count or size describing the run, not a goal.
	Neither Direction = iota
	// Higher is better (throughputs, attainment, accuracy).
	Higher
	// Lower is better (latencies, failures, dollars, replicas).
	Lower
)

// Need is what a profile or space must declare for a metric to be
// defined (space refuses an objective or constraint without it).
type Need int

const (
	// NeedNothing: every profile produces the metric.
	NeedNothing Need = iota
	// NeedSLO: requests are counted against SLO thresholds.
	NeedSLO
	// NeedSearchRate: a search_rate profile measures it.
	NeedSearchRate
	// NeedQuality: a quality profile scores replies.
	NeedQuality
	// NeedPrices: a price file prices the trial's GPUs.
	NeedPrices
	// NeedTrafficRPS: a target traffic rate to serve (and a rate search).
	NeedTrafficRPS
)

// Producers of metrics: the package that computes each.
const (
	ByBench     = "bench"     // Metrics.Values, Quality, WithPerGPU
	ByObjective = "objective" // the rate search (objective.SearchRate)
	ByCost      = "cost"      // cost.Metrics, cost.Fleet
)

// Metric is one row of the table.
type Metric struct {
	Name string
	// Unit is what the value counts, as the report prints it: "tok/s",
	// "req/s", "ms", "s", "requests", "tokens", "fraction", "USD/h",
	// "USD/Mtok", "replicas", "GPUs".
	Unit     string
	Better   Direction
	Producer string
	Needs    Need
	// Doc says what it measures.
	Doc string
}

// Names of the metrics other packages refer to by name.
const (
	MetricCompleted       = "completed"
	MetricFailed          = "failed"
	MetricRequestTPS      = "request_tps"
	MetricOutputTPS       = "output_tps"
	MetricTotalTPS        = "total_tps"
	MetricGoodput         = "goodput_rps"
	MetricSLOAttainment   = "slo_attainment"
	MetricMaxRateUnderSLO = "max_rate_under_slo"
	MetricMeanTTFTMs      = "mean_ttft_ms"
	MetricP99TTFTMs       = "p99_ttft_ms"
	MetricMeanTPOTMs      = "mean_tpot_ms"
	MetricMeanITLMs       = "mean_itl_ms"
	MetricMeanE2EMs       = "mean_e2e_ms"
)

// plainTable are the metrics named once each (the distributions'
// names are built from distTable and the percentiles a profile asks for).
var plainTable = []Metric{
	{MetricCompleted, "requests", Higher, ByBench, NeedNothing, "requests that succeeded"},
	{MetricFailed, "requests", Lower, ByBench, NeedNothing, "requests that failed"},
	{"duration_s", "s", Neither, ByBench, NeedNothing, "from the first request's send to the last one's end"},
	{"total_input_tokens", "tokens", Neither, ByBench, NeedNothing, "prompt tokens of the successful requests"},
	{"total_output_tokens", "tokens", Neither, ByBench, NeedNothing, "generated tokens of the successful requests"},
	{MetricRequestTPS, "req/s", Higher, ByBench, NeedNothing, "successful requests per second"},
	{MetricOutputTPS, "tok/s", Higher, ByBench, NeedNothing, "generated tokens per second"},
	{MetricTotalTPS, "tok/s", Higher, ByBench, NeedNothing, "prompt and generated tokens per second"},
	{"peak_output_tps", "tok/s", Higher, ByBench, NeedNothing, "the highest generated tokens per second in any one second"},
	{"peak_concurrency", "requests", Neither, ByBench, NeedNothing, "the most requests in flight at once"},
	{MetricGoodput, "req/s", Higher, ByBench, NeedSLO, "requests per second within every SLO threshold"},
	{MetricSLOAttainment, "fraction", Higher, ByBench, NeedSLO, "the share of requests within every SLO threshold"},
	{AnswerAccuracy, "fraction", Higher, ByBench, NeedQuality, "the share of replies matching their reference"},
	{BaselineAgreement, "fraction", Higher, ByBench, NeedQuality, "the share of replies identical to the baseline's"},
	{MetricMaxRateUnderSLO, "req/s", Higher, ByObjective, NeedSearchRate, "the highest request rate served within the SLO"},
	{MetricUSDPerHour, "USD/h", Lower, ByCost, NeedPrices, "the trial's GPUs' price per hour"},
	{MetricUSDPerMTokOutput, "USD/Mtok", Lower, ByCost, NeedPrices, "dollars per million generated tokens"},
	{MetricUSDPerMTokTotal, "USD/Mtok", Lower, ByCost, NeedPrices, "dollars per million prompt and generated tokens"},
	{MetricReplicas, "replicas", Lower, ByCost, NeedTrafficRPS, "replicas serving [target] traffic_rps within the SLO"},
	{MetricGPUsTotal, "GPUs", Lower, ByCost, NeedTrafficRPS, "the GPUs those replicas occupy"},
}

// distTable are the latency distributions, each reported as
// {mean,median,std,pNN}_NAME_ms; e2e also as {mean,median,pNN}_e2e_s.
var distTable = []struct{ Name, Doc string }{
	{"ttft", "time to first token"},
	{"tpot", "time per output token after the first"},
	{"itl", "inter-token latency"},
	{"e2e", "end-to-end request latency"},
}

// Stats of a distribution in the default names, in MetricNames order.
var (
	msStats = []string{"mean", "median", "std", "p50", "p90", "p95", "p99"}
	sStats  = []string{"mean", "median", "p50", "p90", "p95", "p99"}
)

// perGPU are the throughputs that also have a per-GPU figure (NAME_per_gpu,
// WithPerGPU): a config on 8 GPUs against one on 2 compares fairly only
// per GPU.
var perGPU = []string{MetricTotalTPS, MetricOutputTPS, MetricRequestTPS, MetricGoodput, MetricMaxRateUnderSLO}

// MetricOf is the table's row for a metric name: a plain metric, a
// throughput's per-GPU figure, or a distribution's statistic (any
// percentile), under any stageK_ prefix (the row keeps the full name).
func MetricOf(name string) (Metric, bool) {
	k, base := splitStage(name)
	if strings.HasPrefix(base, "stage") {
		return Metric{}, false
	}
	m, ok := lookupBase(base)
	if ok && k >= 0 {
		m.Name = name
	}
	return m, ok
}

func lookupBase(base string) (Metric, bool) {
	if i := slices.IndexFunc(plainTable, func(m Metric) bool { return m.Name == base }); i >= 0 {
		return plainTable[i], true
	}
	if total, ok := strings.CutSuffix(base, PerGPUSuffix); ok && slices.Contains(perGPU, total) {
		m, _ := lookupBase(total)
		m.Name, m.Unit, m.Producer = base, m.Unit+"/GPU", ByBench
		m.Doc += ", per GPU of the trial"
		return m, true
	}
	if sm := metricName.FindStringSubmatch(base); sm != nil {
		dist, unit := sm[4], "ms"
		if dist == "" {
			dist, unit = "e2e", "s"
		}
		i := slices.IndexFunc(distTable, func(d struct{ Name, Doc string }) bool { return d.Name == dist })
		return Metric{base, unit, Lower, ByBench, NeedNothing, distTable[i].Doc}, true
	}
	return Metric{}, false
}
