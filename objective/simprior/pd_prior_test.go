package simprior_test

import (
	"context"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// The prior screens aggregated and disaggregated configs of one space
// alike: a PD config of the 16-GPU example is predicted through the
// simulator's PD pools, one of the 8-GPU example (whose sides cannot
// hold GLM-5.2) is infeasible, as the study would find it.
func TestPriorScreensDisaggregatedConfigs(t *testing.T) {
	ctx := context.Background()
	load := func(name string) *space.Space {
		sp, err := space.Load(ctx, "../../examples/pd/"+name, studies.SpaceOptions(nil))
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	pd := space.Config{"engine": "sglang", "disaggregation": "pd", "kv_cache_dtype": "fp8_e4m3",
		"prefill_instances": int64(1), "decode_instances": int64(1), "prefill_tp": int64(8), "decode_tp": int64(8),
		"prefill_chunked_prefill": "default", "decode_dp": int64(8), "decode_enable_dp_attention": true, "decode_max_running": int64(256)}
	sp16 := load("glm52-16xh200.toml")
	if err := sp16.Check(pd); err != nil {
		t.Fatalf("the example's PD config breaks its rules: %v", err)
	}
	p := simprior.New(sp16, sim.DefaultCards())
	if sc, ok := p.(interface {
		Screen(context.Context, space.Config) ([]float64, bool)
	}); ok {
		if v, feasible := sc.Screen(ctx, pd); !feasible || v[0] <= 0 {
			t.Fatalf("screening a PD config: %v %v", v, feasible)
		}
	}
	if v, feasible := p.Predict(ctx, pd); !feasible || v[0] <= 0 {
		t.Fatalf("predicting a PD config: %v %v", v, feasible)
	}
	half := space.Config{"engine": "sglang", "disaggregation": "pd", "kv_cache_dtype": "fp8_e4m3",
		"prefill_instances": int64(1), "decode_instances": int64(1), "prefill_tp": int64(4), "decode_tp": int64(4), "decode_max_running": int64(64)}
	sp8 := load("glm52-8xh200.toml")
	if err := sp8.Check(half); err != nil {
		t.Fatalf("the 8-GPU example's PD config breaks its rules: %v", err)
	}
	if v, feasible := simprior.New(sp8, sim.DefaultCards()).Predict(ctx, half); feasible {
		t.Fatalf("GLM-5.2 on 4 H200s per side predicted feasible: %v", v)
	}
}
