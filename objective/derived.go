package objective

import (
	"maps"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/cost"
	"github.com/servetune/servetune/engines"
)

// derived is m with the figures that follow from the trial rather than
// from its requests: each throughput per GPU (bench.WithPerGPU) and, when
// the target has a price file, the cost metrics at the price of the GPU
// type the trial ran on (its gpu knob, or target.gpu). One place, so the
// end of a trial (Measure) and its checkpoints (Report) agree.
func derived(m map[string]float64, t Trial) map[string]float64 {
	gpus := engines.GPUs(t.Config, t.Target)
	m = bench.WithPerGPU(m, gpus)
	prices := t.Target.PriceList
	if m == nil || prices == nil {
		return m
	}
	price, ok := prices.Lookup(t.Target.GPUOf(t.Config))
	if !ok {
		return m // refused at load; a Target built in code gets no cost
	}
	c := cost.Metrics(m, gpus, price.USDPerGPUHour)
	if len(c) == 0 {
		return m
	}
	out := maps.Clone(m)
	maps.Copy(out, c)
	return out
}
