package objective

import (
	"maps"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/cost"
	"github.com/servetune/servetune/engines"
)

// derived is m with the figures that follow from the trial rather than
// from its requests: each throughput per GPU (bench.WithPerGPU); with
// [target] traffic_rps, the replicas and GPUs that serve it (cost.Fleet);
// with a price file, the cost metrics at the price of the GPU type the
// trial ran on (its gpu knob, or target.gpu). One place, so the end of a
// trial (Measure) and its checkpoints (Report) agree.
func derived(m map[string]float64, t Trial) map[string]float64 {
	gpus := engines.GPUs(t.Config, t.Target)
	m = bench.WithPerGPU(m, gpus)
	if m == nil {
		return m
	}
	extra := map[string]float64{}
	rps := t.Target.TrafficRPS
	fleet := cost.Fleet(m, gpus, rps)
	maps.Copy(extra, fleet)
	if price, ok := trialPrice(t); ok {
		maps.Copy(extra, cost.Metrics(m, gpus, price))
		if _, searched := m[bench.MetricMaxRateUnderSLO]; searched && rps > 0 {
			// usd_per_hour is then the whole deployment's: every replica
			// the traffic needs, or none when no replica count serves it.
			delete(extra, bench.MetricUSDPerHour)
			if n, ok := fleet[bench.MetricGPUsTotal]; ok {
				extra[bench.MetricUSDPerHour] = n * price
			}
		}
	}
	if len(extra) == 0 {
		return m
	}
	out := maps.Clone(m)
	maps.Copy(out, extra)
	return out
}

// trialPrice is the price per GPU-hour of the GPU type the trial runs on.
func trialPrice(t Trial) (float64, bool) {
	if t.Target.PriceList == nil {
		return 0, false
	}
	p, ok := t.Target.PriceList.Lookup(t.Target.GPUOf(t.Config))
	return p.USDPerGPUHour, ok // an unpriced type is refused at load; a Target built in code gets no cost
}
