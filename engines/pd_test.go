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

// A server config paired with itself splits back into two sides that are
// that server, one of each; a knob no side sets for itself is shared.
func TestPDPairSplitsBackIntoTheServer(t *testing.T) {
	server := space.Config{KnobEngine: "vllm", KnobTP: int64(2), KnobMaxRunning: int64(64), KnobKVCacheDType: "fp8", KnobMaxModelLen: int64(8192)}
	pd := PDPair(server)
	if pd["prefill_tp"] != int64(2) || pd["decode_max_running"] != int64(64) || pd.Has("prefill_kv_cache_dtype") {
		t.Fatalf("per-side knobs of %v", pd)
	}
	p, ok := SplitPD(pd)
	if !ok || p.PrefillCount != 1 || p.DecodeCount != 1 {
		t.Fatalf("SplitPD(PDPair) = %+v, %v; want one server a side", p, ok)
	}
	if !reflect.DeepEqual(p.Prefill, server) || !reflect.DeepEqual(p.Decode, server) {
		t.Fatalf("sides:\nprefill %v\ndecode  %v\nwant    %v", p.Prefill, p.Decode, server)
	}
	if server.Has(KnobDisaggregation) {
		t.Fatal("PDPair changed the server config")
	}
}
