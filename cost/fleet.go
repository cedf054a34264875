package cost

import (
	"math"

	"github.com/servetune/servetune/bench"
)

// Fleet is what serving rps requests per second takes with one config on
// gpus GPUs: replicas = ceil(rps / max_rate_under_slo), the highest rate
// one replica sustained within the SLO, and gpus_total = replicas × gpus.
// Both are absent (undefined) without a positive rps, GPUs, or a measured
// positive max_rate_under_slo: a config that met the SLO at no rate serves
// the traffic at no replica count.
func Fleet(values map[string]float64, gpus int, rps float64) map[string]float64 {
	out := map[string]float64{}
	rate, ok := values[bench.MetricMaxRateUnderSLO]
	if !ok || !(rate > 0) || math.IsInf(rate, 0) || !(rps > 0) || math.IsInf(rps, 0) || gpus <= 0 {
		return out
	}
	replicas := math.Ceil(rps / rate)
	out[bench.MetricReplicas] = replicas
	out[bench.MetricGPUsTotal] = replicas * float64(gpus)
	return out
}
