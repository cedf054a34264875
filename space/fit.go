package space

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"strings"

	"github.com/servetune/servetune/bench"
)

// fit refuses what loads but could only fail once engines launch: an
// explicit prior that cannot work, dataset files that cannot be read,
// configs needing more GPUs than the target has, and knob values the
// target's engine version refuses. Each would surface per trial, after an
// engine started, or not at all.
func (d *decoder) fit(ctx context.Context, s *Space) {
	d.priorFits(s)
	d.datasets(s)
	d.nodesFit(s.Target)
	d.contextFits(s)
	d.requestsFit(s)
	d.configsFit(ctx, s)
}

// priorFits asks whether prior = "sim", written out, can guide this study.
func (d *decoder) priorFits(s *Space) {
	if s.Study.Prior != PriorSim || d.opt.Prior == nil {
		return
	}
	if err := d.opt.Prior(s.Study.Sampler, s.Target); err != nil {
		d.fail("study.prior", "%v", err)
	}
}

// datasets opens and reads every profile's dataset file, as each trial
// would, quality profiles' included.
func (d *decoder) datasets(s *Space) {
	if d.opt.NoDatasets {
		return
	}
	for _, p := range s.Profiles {
		if p.DatasetPath == "" || p.Validate() != nil {
			continue // no file, or already refused
		}
		if _, err := p.Plan(); err != nil {
			var ke *bench.KeyError
			if errors.As(err, &ke) {
				d.fail("profiles.custom."+p.Name+"."+ke.Key, "%v", ke.Err)
				continue
			}
			d.fail("profiles.custom."+p.Name+".dataset_path", "%v", err)
		}
	}
}

// nodesFit checks the node shape against the target's GPUs.
func (d *decoder) nodesFit(t Target) {
	if t.GPUsPerNode > t.GPUs && len(t.Nodes) == 0 && !d.opt.NodesGiven {
		d.fail("target.gpus_per_node", "is %d, more than target.gpus = %d, and there are no target.nodes to make up the difference", t.GPUsPerNode, t.GPUs)
	}
}

// fitSamples is how many random configs configsFit draws.
const fitSamples = 2000

// configsFit samples configs that keep every rule and refuses a space
// some of whose configs could never run: needing more GPUs than a trial
// can have, or a knob value the engine version refuses.
func (d *decoder) configsFit(ctx context.Context, s *Space) {
	rng := rand.New(rand.NewSource(2))
	f := &fitProbe{asked: map[string]bool{}}
	for i := 0; i < fitSamples && ctx.Err() == nil; i++ {
		c := s.WithTargetEngine(s.Sample(rng))
		if s.Check(c) != nil {
			continue
		}
		d.gpusFit(s.Target, c, f)
		d.pdFits(s, c, f)
		d.aggregatedFits(s, c, f)
		d.valuesFit(s.Target, c, f)
	}
	d.aggregatedReport(s, f)
}

// fitProbe remembers what configsFit reported, so each is reported once.
type fitProbe struct {
	gpus, perNode, pd bool
	// aggregated and aggOver count the sampled aggregated configs and
	// those needing more GPUs than a trial can have (aggregatedFits).
	aggregated, aggOver int
	aggExample          string
	asked               map[string]bool // engine, knob, value already asked
}

// capacity is the most GPUs one trial can have: target.gpus on one node,
// all of target.nodes' GPUs on several; 0 when unknown (--nodes).
func (d *decoder) capacity(t Target) (int, string) {
	switch {
	case len(t.Nodes) > 0:
		return t.NodeGPUs() * len(t.Nodes), fmt.Sprintf("the %d GPUs of target.nodes (%d nodes of %d)", t.NodeGPUs()*len(t.Nodes), len(t.Nodes), t.NodeGPUs())
	case d.opt.NodesGiven:
		return 0, ""
	}
	return t.GPUs, fmt.Sprintf("target.gpus = %d", t.GPUs)
}

func (d *decoder) gpusFit(t Target, c Config, f *fitProbe) {
	most, what := d.capacity(t)
	if n, ok := t.TrialGPUs(c); ok && most > 0 && n > most && !f.gpus {
		f.gpus = true
		if !isNumeral(t.GPUsPerTrial) {
			d.fail("target.gpus_per_trial", "%q is %d on %s, more than %s: add a rule that keeps it within, or raise target.gpus", t.GPUsPerTrial, n, c.Summary(), what)
		} else {
			d.fail("target.gpus_per_trial", "is %d, more than %s", n, what)
		}
	}
	if d.opt.EngineGPUs == nil || t.GPUsPerNode == 0 || len(t.Nodes) > 0 || d.opt.NodesGiven || f.perNode {
		return
	}
	if need := d.opt.EngineGPUs(c, t); need > t.GPUsPerNode {
		f.perNode = true
		d.fail("target.gpus_per_node", "is %d, but %s needs %d GPUs and there are no target.nodes to spread it over: list the nodes, or add a rule that keeps configs within one node", t.GPUsPerNode, c.Summary(), need)
	}
}

func isNumeral(s string) bool { return s != "" && strings.Trim(s, "0123456789") == "" }

// valuesFit asks the engine adapter about each knob value of c once.
func (d *decoder) valuesFit(t Target, c Config, f *fitProbe) {
	if d.opt.RefusedValue == nil {
		return
	}
	e := c.Engine()
	for _, k := range c.Keys() {
		if k == "engine" || !c.Has(k) {
			continue
		}
		key := e + "\x00" + k + "\x00" + FormatValue(c[k])
		if f.asked[key] {
			continue
		}
		f.asked[key] = true
		if err := d.opt.RefusedValue(t, e, k, c[k]); err != nil && !f.asked[err.Error()] {
			f.asked[err.Error()] = true // a verdict on the knob, not the value, is said once
			d.fail("params."+k, "%v", err)
		}
	}
}
