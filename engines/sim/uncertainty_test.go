package sim

import (
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func extrapolationNames(t *testing.T, cfg space.Config, tg space.Target) (Uncertainty, []string) {
	t.Helper()
	u, err := New().Uncertainty(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, x := range u.Extrapolations {
		names = append(names, x.Name)
	}
	return u, names
}

// A config inside the calibration data (vLLM, H100, TP ≤ 4) makes no
// extrapolation; each way out of it adds its own, and each widens every
// interval.
func TestUncertaintyWidensPerExtrapolation(t *testing.T) {
	in, names := extrapolationNames(t, space.Config{"engine": "vllm", "tp": int64(2), "max_model_len": int64(4096)},
		space.Target{Engine: "vllm", Model: "Llama-3.1-70B", GPU: "H100", GPUs: 2})
	if len(names) != 0 {
		t.Fatalf("Llama-3.1-70B TP2 on H100: extrapolations %v, want none", names)
	}
	out, names := extrapolationNames(t, space.Config{"engine": "vllm", "tp": int64(8), "model_variant": "bf16"},
		space.Target{Engine: "vllm", Model: "Qwen3.5-35B-A3B", GPU: "A100-80GB", GPUs: 8})
	want := []string{"tp_above_4", "moe_dtype", "gpu_generation"}
	if len(names) != len(want) {
		t.Fatalf("BF16 MoE at TP8 on A100: extrapolations %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("extrapolations %v, want %v", names, want)
		}
	}
	in.Spreads = map[string]Spread{"e2e_mean": {Bias: 0.02, H80: 0.08, H95: 0.15}}
	out.Spreads = in.Spreads
	a, _ := in.Interval("e2e_mean", 1000)
	b, _ := out.Interval("e2e_mean", 1000)
	if !(b.Lo80 < a.Lo80 && b.Hi80 > a.Hi80 && b.Lo95 < a.Lo95 && b.Hi95 > a.Hi95) {
		t.Errorf("extrapolating config %+v not wider than %+v", b, a)
	}
	if !(a.Lo95 < a.Lo80 && a.Lo80 < 1000 && a.Hi80 > 1000*math.Exp(-0.02) && a.Hi95 > a.Hi80) {
		t.Errorf("interval %+v not nested around the bias-corrected value", a)
	}
	// 80%: e^(±0.08) around 1000·e^(−0.02).
	if got, want := a.Hi80, 1000*math.Exp(-0.02+0.08); math.Abs(got-want) > 1e-9 {
		t.Errorf("hi80 %v, want %v", got, want)
	}
}

// An undefined interval is absent, never NaN.
func TestIntervalAbsentWhereUndefined(t *testing.T) {
	u := Uncertainty{Spreads: map[string]Spread{"e2e_mean": {H80: 0.1, H95: 0.2}}}
	for _, c := range []struct {
		m string
		v float64
	}{{"total_tps", 100}, {"e2e_mean", 0}, {"e2e_mean", math.NaN()}, {"e2e_mean", math.Inf(1)}} {
		if iv, ok := u.Interval(c.m, c.v); ok {
			t.Errorf("%s = %v: interval %+v, want none", c.m, c.v, iv)
		}
	}
}

// The built-in GPU cards name their generation; H100 (the calibration
// GPU) adds nothing, H200 the Hopper widening, the others a generation's.
func TestGPUGenerations(t *testing.T) {
	cs := DefaultCards()
	for name, want := range map[string]string{"H100": "hopper", "H200": "hopper", "A100-80GB": "ampere", "L40S": "ada", "B200": "blackwell"} {
		g, err := cs.GPU(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := GPUGeneration(g); got != want {
			t.Errorf("%s: generation %q, want %q", name, got, want)
		}
	}
}
