package space

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/cost"
	"github.com/servetune/servetune/internal/suggest"
)

// prices reads [target] prices: the user's price file, resolved against
// the space file's directory (as target.sim.cards is) and checked now, so
// a typo in it stops the study before its first trial.
func (d *decoder) prices(m map[string]any) (string, *cost.Prices) {
	if p, given := m["prices"].(string); given && strings.TrimSpace(p) == "" {
		d.fail("target.prices", "is empty: name a price file, or leave prices out")
		return "", nil
	}
	p := d.str(m, "prices", "target", "")
	if p == "" {
		return "", nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(d.file), p)
	}
	list, err := cost.Load(p)
	if err != nil {
		d.fail("target.prices", "%v", err)
		return p, nil
	}
	return p, &list
}

// maxTrafficRPS bounds target.traffic_rps: a fleet's rate, not a typo's.
const maxTrafficRPS = 1e7

// trafficRPS reads [target] traffic_rps, a positive request rate.
func (d *decoder) trafficRPS(m map[string]any) float64 {
	if _, ok := m["traffic_rps"]; !ok {
		return 0
	}
	r, ok := d.number(m, "traffic_rps", "target")
	if ok && !(r > 0 && r <= maxTrafficRPS) {
		d.fail("target.traffic_rps", "must be a request rate above 0 and at most %g per second, got %v", float64(maxTrafficRPS), r)
	}
	return r
}

// gpuTypes checks the GPU types a study runs on (the gpu knob's values,
// or target.gpu): on the simulator each needs a card, and with a price
// file each needs a price. A gpu knob on a real runner is refused: the
// runner cannot move a trial to another node type.
func (d *decoder) gpuTypes(s *Space) {
	p, searched := s.Param(KnobGPU)
	types, path := []string{s.Target.GPU}, "target.gpu"
	if searched {
		types, path = nil, "params."+KnobGPU+".values"
		for _, v := range p.Values {
			types = append(types, FormatValue(v))
		}
		if p.Kind != Categorical {
			d.fail("params."+KnobGPU, "must list GPU types: values = [\"H100\", \"H200\"]")
			return
		}
		if s.Target.Runner != "sim" {
			d.fail(path, "a searched GPU type needs runner = \"sim\": a launched engine runs on the GPUs it is given (measure each type in its own study)")
		}
	}
	for _, g := range types {
		if searched && s.Target.Runner == "sim" && d.opt.CheckTarget != nil {
			t := s.Target
			t.GPU = g
			for _, prob := range d.opt.CheckTarget(t) {
				if prob.Key == "target.gpu" {
					d.fail(path, "%s", prob.Msg)
				}
			}
		}
		if l := s.Target.PriceList; l != nil {
			if _, ok := l.Lookup(g); !ok && g != "" {
				d.fail(path, "GPU type %q has no price in %s%s (priced: %s)", g, l.File, suggest.Hint(g, l.Names()), strings.Join(l.Names(), ", "))
			}
		}
	}
}

// costNeed says what a cost metric needs that the space lacks ("" when
// nothing): a price file pricing the trials' GPUs, and the whole run, not
// one stage (the price buys the whole run's throughput).
func costNeed(metric string, s *Space) string {
	base := bench.BaseMetric(metric)
	if row, _ := bench.MetricOf(base); row.Needs == bench.NeedTrafficRPS {
		if s.Target.TrafficRPS == 0 {
			return "counts the replicas that serve a target rate: give [target] traffic_rps = R (requests per second)"
		}
		return ""
	}
	if !bench.CostMetric(base) {
		return ""
	}
	switch {
	case metric != bench.BaseMetric(metric):
		return "is a cost metric, which is the whole run's, not a stage's: name " + bench.BaseMetric(metric)
	case s.Target.PriceList == nil && s.Target.Prices == "":
		return fmt.Sprintf("is a cost metric and needs prices: give [target] prices = %q (a file of [[gpu]] name, usd_per_gpu_hour, source)", "prices.toml")
	}
	return ""
}
