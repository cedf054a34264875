package sim

import (
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// A skew of ones simulates what no skew does, bit for bit, and each
// factor moves what it names.
func TestSkewMovesWhatItNames(t *testing.T) {
	sg := space.Config{"engine": "sglang"}
	eager := space.Config{"engine": "sglang", "disable_cuda_graph": true}
	vl := space.Config{"engine": "vllm"}
	with := func(k *Skew) *Simulator { return &Simulator{Cards: DefaultCards(), Skew: k} }
	ones := with(&Skew{Kernel: map[string]float64{engines.SGLang: 1, engines.VLLM: 1}, StepCPU: 1, Eager: 1, Prefill: 1})
	for _, cfg := range []space.Config{sg, eager, vl} {
		if a, b := tps(t, New(), cfg, qwenTarget, small(16)), tps(t, ones, cfg, qwenTarget, small(16)); a != b {
			t.Errorf("%v: skew of ones %g, none %g", cfg.Summary(), b, a)
		}
	}
	cases := []struct {
		name string
		skew *Skew
		cfg  space.Config
	}{
		{"sglang kernels", &Skew{Kernel: map[string]float64{engines.SGLang: 2}}, sg},
		{"vllm kernels", &Skew{Kernel: map[string]float64{engines.VLLM: 2}}, vl},
		{"step cpu", &Skew{StepCPU: 3}, sg},
		{"eager launch", &Skew{Eager: 3}, eager},
	}
	for _, c := range cases {
		if a, b := tps(t, New(), c.cfg, qwenTarget, small(16)), tps(t, with(c.skew), c.cfg, qwenTarget, small(16)); !(b < a) {
			t.Errorf("%s: skewed %g not below %g", c.name, b, a)
		}
	}
	// Prefill steps are never graphed, so the graphed config slows too,
	// but less than the eager one.
	ratio := func(cfg space.Config) float64 {
		return tps(t, with(&Skew{Eager: 3}), cfg, qwenTarget, small(16)) / tps(t, New(), cfg, qwenTarget, small(16))
	}
	if g, e := ratio(sg), ratio(eager); !(e < g) {
		t.Errorf("eager skew: graphed keeps %.3f, eager %.3f", g, e)
	}
}
