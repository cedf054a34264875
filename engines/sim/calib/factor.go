package calib

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines/sim"
)

// maxAcceptance caps a fitted acceptance: no draft is always right.
const maxAcceptance = 0.95

// Factor is one multiplicative correction to the cards.
type Factor struct {
	// Name says which card and field: "gpu H200 hbm_tbs".
	Name string
	// Lo and Hi bound the multiplier.
	Lo, Hi float64
	apply  func(c *sim.Cards, x float64)
	// memory: the factor moves the OOM line, so which configs start
	// identifies it too (memory.go).
	memory bool
}

// Candidates are the factors of the target's GPU and model cards and of
// every draft card; which of them measurements identify is Fit's
// decision.
func Candidates(c *sim.Cards, gpu, model string) ([]Factor, error) {
	g, err := gpuIndex(c, gpu)
	if err != nil {
		return nil, err
	}
	m, err := modelIndex(c, model)
	if err != nil {
		return nil, err
	}
	out := gpuFactors(c.GPUs[g].Name, g)
	out = append(out, modelFactors(c.Models[m], m)...)
	for i, d := range c.Drafts {
		out = append(out, Factor{Name: "draft " + d.Name + " acceptance", Lo: 0.5, Hi: 1.6, apply: func(c *sim.Cards, x float64) {
			c.Drafts[i].Acceptance = min(c.Drafts[i].Acceptance*x, maxAcceptance)
		}})
	}
	return out, nil
}

// gpuFactors: what the datasheet promises is the upper bound of what the
// engines reach, so the range is wider below 1 than above.
func gpuFactors(name string, i int) []Factor {
	return []Factor{
		{Name: "gpu " + name + " hbm_tbs", Lo: 0.5, Hi: 1.5, apply: func(c *sim.Cards, x float64) { c.GPUs[i].HBMTBs *= x }},
		{Name: "gpu " + name + " bf16_tflops+fp8_tflops", Lo: 0.4, Hi: 1.6, apply: func(c *sim.Cards, x float64) {
			c.GPUs[i].BF16TFLOPs *= x
			c.GPUs[i].FP8TFLOPs *= x
		}},
		{Name: "gpu " + name + " nvlink_gbs", Lo: 0.33, Hi: 3, apply: func(c *sim.Cards, x float64) { c.GPUs[i].NVLinkGBs *= x }},
	}
}

func modelFactors(m sim.ModelCard, i int) []Factor {
	p := "model " + m.Name + " "
	return []Factor{
		{Name: p + "expert_eff", Lo: 0.4, Hi: 2.5, apply: func(c *sim.Cards, x float64) { c.Models[i].ExpertEff = orOne(c.Models[i].ExpertEff) * x }},
		{Name: p + "comm_eff", Lo: 0.25, Hi: 4, apply: func(c *sim.Cards, x float64) { c.Models[i].CommEff = orOne(c.Models[i].CommEff) * x }},
		{Name: p + "mem_overhead", Lo: 0.7, Hi: 1.5, memory: true, apply: func(c *sim.Cards, x float64) { c.Models[i].MemOverhead = orOne(c.Models[i].MemOverhead) * x }},
		{Name: p + "mtp_acceptance", Lo: 0.5, Hi: 1.6, apply: func(c *sim.Cards, x float64) {
			a := c.Models[i].MTPAcceptance
			if a == 0 {
				a = sim.DefaultMTPAcceptance
			}
			c.Models[i].MTPAcceptance = min(a*x, maxAcceptance)
		}},
	}
}

func orOne(x float64) float64 {
	if x == 0 {
		return 1
	}
	return x
}

// Apply returns a copy of c with factor k at multiplier x[k]; c is not
// changed.
func Apply(c *sim.Cards, fs []Factor, x []float64) *sim.Cards {
	out := &sim.Cards{
		GPUs:   append([]sim.GPUCard(nil), c.GPUs...),
		Models: append([]sim.ModelCard(nil), c.Models...),
		Drafts: append([]sim.DraftCard(nil), c.Drafts...),
	}
	for k, f := range fs {
		f.apply(out, x[k])
	}
	return out
}

// gpuIndex finds the card c.GPU would return.
func gpuIndex(c *sim.Cards, name string) (int, error) {
	g, err := c.GPU(name)
	if err != nil {
		return 0, err
	}
	for i := range c.GPUs {
		if c.GPUs[i].Name == g.Name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("calib: GPU card %q vanished", g.Name) // c.GPU found it above
}

// modelIndex finds the card c.Model would return, as stored (c.Model
// adjusts the weight type of a -FP8 name; the stored card must not be).
func modelIndex(c *sim.Cards, name string) (int, error) {
	m, err := c.Model(name)
	if err != nil {
		return 0, err
	}
	for i := range c.Models {
		if strings.EqualFold(c.Models[i].Name, m.Name) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("calib: model card %q vanished", m.Name)
}
