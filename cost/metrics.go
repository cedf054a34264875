package cost

import (
	"math"

	"github.com/servetune/servetune/bench"
)

// Metrics are the cost metrics of one profile of a trial: usd_per_hour is
// the deployment's price (GPUs × price per GPU-hour); usd_per_mtok_output
// and usd_per_mtok_total divide it by the tokens it served in an hour at
// the measured output_tps and total_tps, per million. A metric whose
// throughput is missing or zero is absent (undefined, never NaN or Inf);
// without GPUs or a positive price none is defined.
func Metrics(values map[string]float64, gpus int, usdPerGPUHour float64) map[string]float64 {
	out := map[string]float64{}
	if gpus <= 0 || !(usdPerGPUHour > 0) || math.IsInf(usdPerGPUHour, 0) {
		return out
	}
	perHour := float64(gpus) * usdPerGPUHour
	out[bench.MetricUSDPerHour] = perHour
	perMTok := func(name, tps string) {
		if v, ok := values[tps]; ok && v > 0 && !math.IsInf(v, 0) {
			out[name] = perHour / (v * 3600) * 1e6
		}
	}
	perMTok(bench.MetricUSDPerMTokOutput, bench.MetricOutputTPS)
	perMTok(bench.MetricUSDPerMTokTotal, bench.MetricTotalTPS)
	return out
}
