package simserve

import (
	"math"
	"testing"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// A simulated decode server waits the analytic model's KV transfer, for
// a prefill peer like itself on its node: Qwen3-8B at TP1 (8 KV heads ×
// 128, 36 layers, BF16: 147 456 bytes a token) over H100 NVLink (450
// GB/s × 0.8) plus the 1 ms latency. An engine without a PD model gets
// the stand-in.
func TestDecodeServerWaitsTheModelsTransfer(t *testing.T) {
	sm := &sim.Simulator{Cards: sim.DefaultCards()}
	target := space.Target{Engine: "vllm", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}
	model := transferModel(sm, space.Config{"engine": "vllm", "tp": int64(1)}, target)
	if model == nil {
		t.Fatal("no transfer model for a vLLM decode server")
	}
	for _, tokens := range []int{0, 1000, 8192} {
		want := 1e-3 + float64(tokens)*147456/360e9
		if got := model(tokens).Seconds(); math.Abs(got-want) > 1e-6 {
			t.Errorf("%d tokens: %.6f s, want %.6f s", tokens, got, want)
		}
	}
	trt := space.Target{Engine: "trtllm", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}
	if transferModel(sm, space.Config{"engine": "trtllm"}, trt) != nil {
		t.Error("a transfer model for an engine the simulator has no PD deployment of")
	}
}
