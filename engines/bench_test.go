package engines

import (
	"testing"

	"github.com/servetune/servetune/space"
)

// Render runs for every trial and every report row; it must stay far
// below a millisecond so reports over thousands of trials are instant.
func BenchmarkRender(b *testing.B) {
	cfg := space.Config{KnobEngine: "sglang", KnobTP: int64(8), KnobDP: int64(8), KnobEnableDPAttention: true,
		KnobMemFraction: 0.85, KnobMoEA2ABackend: "deepep", KnobMaxRunning: int64(256), KnobKVCacheDType: "fp8_e4m3"}
	t := space.Target{Model: "zai-org/GLM-5.2-FP8"}
	for b.Loop() {
		if _, err := Render(cfg, t); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderTRTLLM(b *testing.B) {
	cfg := space.Config{KnobEngine: "trtllm", KnobTP: int64(8), KnobEnableDPAttention: true, KnobKVCacheDType: "fp8",
		KnobCUDAGraphMaxBS: int64(128), KnobSpeculativeAlgorithm: "MTP", KnobSpeculativeNumTokens: int64(3)}
	t := space.Target{Model: "zai-org/GLM-5.2-FP8"}
	for b.Loop() {
		if _, err := Render(cfg, t); err != nil {
			b.Fatal(err)
		}
	}
}

// Classify scans a 200-line tail with every pattern once per failure.
func BenchmarkClassify(b *testing.B) {
	tail := make([]string, 200)
	for i := range tail {
		tail[i] = "INFO 05-29 12:00:00 [engine.py:1] Avg prompt throughput: 1234.5 tokens/s, Running: 64 reqs"
	}
	tail[199] = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."
	for b.Loop() {
		if f := Classify(vllm{}, Starting, Exit{Exited: true, Code: 1}, tail); f.Class != OOM {
			b.Fatal(f)
		}
	}
}
