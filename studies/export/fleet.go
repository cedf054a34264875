package export

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Sizing is how many pods of a trial's server the deployment runs and
// where: the replicas the study computed for [target] traffic_rps, and
// the nodes of the trial's GPU type; each with the sentence saying where
// it came from, which the manifest carries as a comment.
type Sizing struct {
	Replicas    int
	ReplicasWhy string
	// Replicas is the Deployment's replica count (at least 1).
	// GPUType is the type the trial ran on (its gpu knob, else
	// target.gpu); "" on CPU.
	GPUType      string
	NodeSelector map[string]string
	SelectorWhy  string
	// SimulatedWhy says the deployment is sized from simulated numbers:
	// its trial ran on the simulator because the study does not own its
	// GPU type (target.simulated_gpus); "" for a measured trial.
	SimulatedWhy string
}

// sizeOf is trial t's sizing in study sp; gpu says whether it runs on
// GPUs.
func sizeOf(sp *space.Space, t store.Trial, o Options, gpu bool) Sizing {
	s := Sizing{}
	s.Replicas, s.ReplicasWhy = replicasOf(sp, t)
	if gpu {
		s.GPUType = sp.Target.GPUOf(t.Config)
		s.NodeSelector, s.SelectorWhy = selectorOf(sp.Target, o, s.GPUType)
	}
	if t.Simulated() && sp.Target.Simulates(sp.Target.GPUOf(t.Config)) {
		s.SimulatedWhy = fmt.Sprintf("sized from simulated numbers: no trial ran on %s (target.simulated_gpus), so measure it before applying", sp.Target.GPUOf(t.Config))
	}
	return s
}

// replicasOf is the trial's replicas metric (cost.Fleet: ceil(traffic_rps
// / max_rate_under_slo)), the largest over its profiles, when the study
// computed one, else 1; and why.
func replicasOf(sp *space.Space, t store.Trial) (int, string) {
	rps := sp.Target.TrafficRPS
	if !(rps > 0) {
		return 1, "1 replica: the study sets no [target] traffic_rps, so it sized no fleet (give traffic_rps and a profile with search_rate, or scale the Deployment yourself)"
	}
	n, from := 0.0, ""
	for _, prof := range slices.Sorted(maps.Keys(t.Metrics)) {
		if v, ok := t.Metrics[prof][bench.MetricReplicas]; ok && v > n && v < 1e9 {
			n, from = v, prof
		}
	}
	if n < 1 {
		return 1, fmt.Sprintf("1 replica: trial %d has no replicas metric for traffic_rps %s (no profile measured a max_rate_under_slo above 0 for it), so no replica count is known to serve it", t.Number, num(rps))
	}
	rate := t.Metrics[from][bench.MetricMaxRateUnderSLO]
	how := "simulated"
	if sp.Target.Runner != "sim" {
		how = "measured"
	}
	r := int(n)
	noun := "replicas serve"
	if r == 1 {
		noun = "replica serves"
	}
	return r, fmt.Sprintf("%d %s traffic_rps %s: one sustained %s req/s on profile %s%s, and ceil(%s / %s) = %d (%s)",
		r, noun, num(rps), num(rate), from, within(sp, from), num(rps), num(rate), r, how)
}

// within is the SLO a profile's rate search held, as a phrase.
func within(sp *space.Space, profile string) string {
	i := slices.IndexFunc(sp.Profiles, func(p bench.Profile) bool { return p.Name == profile })
	if i < 0 || sp.Profiles[i].SLO == nil {
		return ""
	}
	p := sp.Profiles[i]
	var b []string
	for _, x := range []struct {
		k string
		v float64
	}{{"ttft_ms", p.SLO.TTFTMs}, {"tpot_ms", p.SLO.TPOTMs}, {"e2el_ms", p.SLO.E2ELMs}} {
		if x.v > 0 {
			b = append(b, x.k+" <= "+num(x.v))
		}
	}
	out := " within " + strings.Join(b, ", ")
	if p.SearchRate != nil {
		out += " for " + num(100*p.SearchRate.Attainment) + "% of requests"
	}
	return out
}

// selectorOf is the node selector pinning GPU type gpu: --node-selector's
// (o.NodeSelector) for it, else [target.node_selector]'s, else GFD's
// product label.
func selectorOf(tgt space.Target, o Options, gpu string) (map[string]string, string) {
	sel, given := flagSelector(o, gpu)
	from := "--node-selector " + gpu
	if !given {
		sel, given = tgt.NodeSelectorOf(gpu)
		from = "[target.node_selector." + gpu + "]"
	}
	if given {
		if len(sel) == 0 {
			return nil, fmt.Sprintf("no node selector: %s gives none", from)
		}
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(sel)) {
			kv = append(kv, k+"="+sel[k])
		}
		return maps.Clone(sel), fmt.Sprintf("%s nodes: %s, from %s", gpu, strings.Join(kv, ", "), from)
	}
	if gpu == "" {
		return nil, "no node selector: target.gpu names no GPU type"
	}
	cards, err := studies.TargetCards(tgt)
	if err != nil {
		cards = sim.DefaultCards()
	}
	v, ok := GPUProduct(gpu, cards)
	if !ok {
		return nil, fmt.Sprintf("no node selector: servetune knows no %s value for GPU type %q; give one in [target.node_selector.%s]", GPUProductLabel, gpu, gpu)
	}
	return map[string]string{GPUProductLabel: v}, fmt.Sprintf("%s nodes: %s=%s, the label NVIDIA GPU Feature Discovery sets (your cluster labels them otherwise? [target.node_selector.%s])", gpu, GPUProductLabel, v, gpu)
}

// num prints a figure without noise: a whole number as one, else at
// most 4 significant digits.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
