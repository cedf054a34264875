package space

import (
	"fmt"
	"path/filepath"
	"slices"
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
// or target.gpu): each simulated one needs a card, and with a price file
// each needs a price. A gpu knob on a real runner is refused unless every
// type it searches is the one the runner launches on (target.gpu) or one
// the study simulates (target.simulated_gpus): the runner cannot move a
// trial to another node type.
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
		if s.Target.Runner != "sim" && len(s.Target.SimulatedGPUs) == 0 {
			d.fail(path, "a searched GPU type needs runner = \"sim\", or the types you do not own in [target] simulated_gpus: a launched engine runs on the GPUs it is given (measure each type in its own study)")
		}
	}
	d.simulatedGPUs(s, types, searched)
	modelChecked := false
	for _, g := range types {
		if searched && g != Default && (s.Target.Runner == "sim" || s.Target.Simulates(g)) && d.opt.CheckTarget != nil {
			t := s.Target
			t.GPU, t.Runner = g, "sim"
			for _, prob := range d.opt.CheckTarget(t) {
				switch {
				case prob.Key == "target.gpu":
					d.fail(path, "%s", prob.Msg)
				case s.Target.Runner != "sim" && !modelChecked:
					// A real runner's target was not checked against
					// the cards: its simulated types need them.
					d.fail(prob.Key, "%s (the simulated GPU types need it)", prob.Msg)
				}
			}
			modelChecked = modelChecked || s.Target.Runner != "sim"
		}
		if l := s.Target.PriceList; l != nil {
			if _, ok := l.Lookup(g); !ok && g != "" {
				d.fail(path, "GPU type %q has no price in %s%s (priced: %s)", g, l.File, suggest.Hint(g, l.Names()), strings.Join(l.Names(), ", "))
			}
		}
	}
}

// simulatedGPUs checks [target] simulated_gpus against the gpu knob's
// values (types; searched: the space has the knob): it belongs to a real
// runner's study that searches the GPU type, names only the knob's values
// and not target.gpu, the type owned; and every value of the knob is
// target.gpu or simulated, so no trial lands on a type nobody runs.
func (d *decoder) simulatedGPUs(s *Space, types []string, searched bool) {
	t, key := s.Target, "target.simulated_gpus"
	if len(t.SimulatedGPUs) == 0 {
		return
	}
	switch {
	case t.Runner == "sim":
		d.fail(key, "every trial is simulated already with runner = \"sim\": remove simulated_gpus, or set runner = \"process\" to measure target.gpu")
		return
	case !searched:
		d.fail(key, "names gpu knob values, but the space searches no GPU type: add [params.%s] values = [%q, %q]", KnobGPU, t.GPU, t.SimulatedGPUs[0])
		return
	case t.GPU == "":
		d.fail("target.gpu", "is required with simulated_gpus: it is the GPU type the real runner launches on, and measures")
		return
	}
	for _, g := range t.SimulatedGPUs {
		switch {
		case g == t.GPU:
			d.fail(key, "lists %q, which is target.gpu: the type you own is measured, not simulated", g)
		case !slices.Contains(types, g):
			d.fail(key, "%q is not a value of params.%s%s (values: %s)", g, KnobGPU, suggest.Hint(g, types), strings.Join(types, ", "))
		}
	}
	for _, g := range types {
		if g != Default && g != t.GPU && !slices.Contains(t.SimulatedGPUs, g) {
			d.fail("params."+KnobGPU+".values", "GPU type %q is neither target.gpu (%q, measured) nor in target.simulated_gpus: list it there to simulate it%s", g, t.GPU, suggest.Hint(g, t.SimulatedGPUs))
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
