package bench

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// metricName matches a distribution's statistic: {mean,median,std,pNN}
// of a distTable row in ms, or {mean,median,pNN}_e2e_s.
var metricName = regexp.MustCompile(`^((mean|median|std|p[0-9]+(\.[0-9]+)?)_(` + distNames() + `)_ms|(mean|median|p[0-9]+(\.[0-9]+)?)_e2e_s)$`)

func distNames() string {
	var ns []string
	for _, d := range distTable {
		ns = append(ns, regexp.QuoteMeta(d.Name))
	}
	return strings.Join(ns, "|")
}

// Cost metrics (package cost computes them from a trial's GPUs, the price
// of its GPU type in the user's price file and its throughput;
// objective.Measure adds them). A space naming one without a price file is
// refused at load (space: costNeed).
const (
	MetricUSDPerHour       = "usd_per_hour"
	MetricUSDPerMTokOutput = "usd_per_mtok_output"
	MetricUSDPerMTokTotal  = "usd_per_mtok_total"
)

// Deployment metrics for a target request rate ([target] traffic_rps):
// the replicas of a config that serve it within the SLO, from the profile's
// max_rate_under_slo, and the GPUs they occupy (package cost).
const (
	MetricReplicas  = "replicas"
	MetricGPUsTotal = "gpus_total"
)

// CostMetric reports whether name is one of the cost metrics (those the
// table says need prices).
func CostMetric(name string) bool {
	m, ok := lookupBase(name)
	return ok && m.Needs == NeedPrices
}

// PerGPUSuffix names a throughput's per-GPU figure: total_tps_per_gpu.
const PerGPUSuffix = "_per_gpu"

// PerGPUOf is the throughput a per-GPU metric divides ("total_tps" for
// "stage1_total_tps_per_gpu" is "stage1_total_tps"), false for another
// metric.
func PerGPUOf(name string) (string, bool) {
	total, ok := strings.CutSuffix(name, PerGPUSuffix)
	if !ok || !slices.Contains(perGPU, BaseMetric(total)) {
		return "", false
	}
	return total, true
}

// WithPerGPU is m with each throughput's per-GPU figure beside it (the
// stages' too) for a trial on gpus GPUs; m itself when gpus < 1.
func WithPerGPU(m map[string]float64, gpus int) map[string]float64 {
	if gpus < 1 || m == nil {
		return m
	}
	out := make(map[string]float64, len(m)+len(perGPU))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range m {
		if slices.Contains(perGPU, BaseMetric(k)) {
			out[k+PerGPUSuffix] = v / float64(gpus)
		}
	}
	return out
}

var stagePrefix = regexp.MustCompile(`^stage([0-9]+)_`)

// percentileOf is the percentile a distribution metric names (99 for
// p99_ttft_ms), false for a name that names none.
var percentileOf = regexp.MustCompile(`^p([0-9]+(?:\.[0-9]+)?)_`)

// KnownMetric reports whether name is a metric Metrics.Values can produce
// (percentiles other than the defaults are produced when requested; a
// stageK_ prefix names the metric of stage K of a multi-stage profile).
func KnownMetric(name string) bool {
	_, ok := MetricOf(name)
	return ok
}

// splitStage splits "stage2_p99_ttft_ms" into 2 and "p99_ttft_ms"; a name
// without the prefix is stage -1.
func splitStage(name string) (int, string) {
	m := stagePrefix.FindStringSubmatch(name)
	if m == nil {
		return -1, name
	}
	k, err := strconv.Atoi(m[1])
	if err != nil {
		return -1, name // more digits than an int: no stage a profile has
	}
	return k, name[len(m[0]):]
}

// BaseMetric is name without its stageK_ prefix: the metric each stage
// reports as the whole run does.
func BaseMetric(name string) string {
	_, base := splitStage(name)
	return base
}

// MetricNames is every metric name a profile without stages produces with
// the default percentiles, in a stable order: the candidates a mistyped
// metric is compared with.
func MetricNames() []string {
	out := make([]string, 0, len(plainTable)+len(perGPU)+len(distTable)*len(msStats)+len(sStats))
	for _, m := range plainTable {
		out = append(out, m.Name)
	}
	for _, n := range perGPU {
		out = append(out, n+PerGPUSuffix)
	}
	slices.Sort(out)
	for _, d := range distTable {
		for _, stat := range msStats {
			out = append(out, stat+"_"+d.Name+"_ms")
		}
	}
	for _, stat := range sStats {
		out = append(out, stat+"_e2e_s")
	}
	return out
}

// MetricCandidates is MetricNames under name's stageK_ prefix, if it has
// one, so "stage1_p99_tfft_ms" is compared with "stage1_p99_ttft_ms".
func MetricCandidates(name string) []string {
	out := MetricNames()
	if k, _ := splitStage(name); k >= 0 {
		for i, n := range out {
			out[i] = fmt.Sprintf("stage%d_%s", k, n)
		}
	}
	return out
}

// MetricProblem says why the profile cannot produce a known metric ("" when
// it can): a stage it does not have (stages count from 0), a stage prefix
// on a profile without stages, or a percentile it does not compute.
func (p Profile) MetricProblem(name string) string {
	k, base := splitStage(name)
	switch {
	case k >= 0 && len(p.Stages) == 0:
		return fmt.Sprintf("names stage %d, but the profile has no stages", k)
	case k >= len(p.Stages):
		return fmt.Sprintf("names stage %d, but the profile has %d stages, numbered from 0 (%s)", k, len(p.Stages), stageRange(len(p.Stages), base))
	}
	if m := percentileOf.FindStringSubmatch(base); m != nil {
		q, err := strconv.ParseFloat(m[1], 64)
		have := withDefaultPercentiles(p.Percentiles)
		if err != nil || PercentileKey(q) != "p"+m[1] || !slices.Contains(have, q) {
			return fmt.Sprintf("is a percentile the profile does not compute: add %s to its percentiles (it computes %s)", m[1], formatPercentiles(have))
		}
	}
	return ""
}

func stageRange(n int, base string) string {
	if n == 1 {
		return "stage0_" + base
	}
	return fmt.Sprintf("stage0_%s … stage%d_%s", base, n-1, base)
}

func formatPercentiles(ps []float64) string {
	s := make([]string, len(ps))
	for i, q := range ps {
		s[i] = strconv.FormatFloat(q, 'f', -1, 64)
	}
	return strings.Join(s, ", ")
}
