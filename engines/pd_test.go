package engines

import (
	"reflect"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestSplitPD(t *testing.T) {
	cfg := space.Config{
		KnobEngine: "sglang", KnobDisaggregation: Disaggregated, KnobKVCacheDType: "fp8_e4m3",
		KnobTP: int64(8), KnobPrefillInstances: int64(2), KnobDecodeInstances: int64(1),
		"prefill_tp": int64(2), "decode_tp": int64(4), "decode_dp": int64(4), "decode_enable_dp_attention": true,
		"prefill_chunked_prefill": int64(8192), KnobKVTransferBackend: "mooncake",
	}
	p, ok := SplitPD(cfg)
	if !ok {
		t.Fatal("a pd config was not split")
	}
	wantPrefill := space.Config{KnobEngine: "sglang", KnobKVCacheDType: "fp8_e4m3", KnobTP: int64(2), KnobChunkedPrefill: int64(8192)}
	wantDecode := space.Config{KnobEngine: "sglang", KnobKVCacheDType: "fp8_e4m3", KnobTP: int64(4), KnobDP: int64(4), KnobEnableDPAttention: true}
	if !reflect.DeepEqual(p.Prefill, wantPrefill) || !reflect.DeepEqual(p.Decode, wantDecode) {
		t.Fatalf("sides:\nprefill %v\ndecode  %v", p.Prefill, p.Decode)
	}
	if p.PrefillCount != 2 || p.DecodeCount != 1 || p.Backend != "mooncake" {
		t.Fatalf("counts %d/%d backend %q", p.PrefillCount, p.DecodeCount, p.Backend)
	}
	// 2 prefill servers × tp 2, plus 1 decode server whose DP attention
	// lives inside its TP group (SGLang): 4 + 4.
	if n := GPUs(cfg, space.Target{}); n != 8 {
		t.Fatalf("GPUs = %d, want 8", n)
	}
	if _, ok := SplitPD(space.Config{KnobEngine: "vllm", KnobDisaggregation: "none"}); ok {
		t.Fatal("an aggregated config was split")
	}
}
