package sim

import (
	"context"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

func evalOn(t *testing.T, cfg space.Config, tgt space.Target, p bench.Profile) ([]bench.Record, time.Duration, error) {
	t.Helper()
	return New().Evaluate(context.Background(), cfg, tgt, p, 1)
}

// preemptions counts the benchmark's restarts: a tight KV cache preempts
// running requests (vLLM recompute); offload keeps their KV on the host.
func TestOffloadReplacesRecomputeWhenThePoolFills(t *testing.T) {
	tgt := space.Target{Model: "Qwen3-8B", GPU: "H100", GPUs: 1}
	p := bench.Profile{Name: "p", Dataset: "random", InputLen: 4096, OutputLen: 1024, NumPrompts: 96, MaxConcurrency: 96, Seed: 1}
	tight := space.Config{"engine": "vllm", "mem_fraction": 0.3, "max_running": int64(96)}
	_, without, err := evalOn(t, tight, tgt, p)
	if err != nil {
		t.Fatal(err)
	}
	with := with1(tight, "kv_offload_gb", 64.0)
	_, offloaded, err := evalOn(t, with, tgt, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tight cache: %v without offload, %v with 64 GiB", without, offloaded)
	if offloaded >= without {
		t.Errorf("with 64 GiB of host KV the tight cache took %v, without %v: loading over PCIe must beat recomputing", offloaded, without)
	}
	// A pool that never fills: offload changes nothing at all.
	light := space.Config{"engine": "vllm", "max_running": int64(8)}
	small := bench.Profile{Name: "p", Dataset: "random", InputLen: 512, OutputLen: 128, NumPrompts: 32, MaxConcurrency: 8, Seed: 1}
	a, da, err := evalOn(t, light, tgt, small)
	if err != nil {
		t.Fatal(err)
	}
	b, db, err := evalOn(t, with1(light, "kv_offload_gb", 64.0), tgt, small)
	if err != nil {
		t.Fatal(err)
	}
	if da != db || len(a) != len(b) || a[len(a)-1].Latency != b[len(b)-1].Latency {
		t.Errorf("offload changed a run whose GPU pool never fills: %v vs %v", da, db)
	}
}

func TestOffloadPool(t *testing.T) {
	s := &setup{tp: 2, offloadGiB: 8, gpu: GPUCard{PCIeGBs: 50}}
	o := newOffloads(s, memPlan{kvPerToken: 64 << 10})
	if want := int(4 * gib / (64 << 10)); o.perRank != want {
		t.Fatalf("per-rank pool %d tokens, want %d (8 GiB over tp=2)", o.perRank, want)
	}
	rk := &rankState{kvUsed: 100}
	r := &simReq{kv: 100, prompt: 120}
	o.spill(rk, r, 1.0)
	if o.free[rk] != o.perRank-100 || r.visible <= 1.0 {
		t.Fatalf("spill: free %d, visible %v", o.free[rk], r.visible)
	}
	r.kv, rk.kvUsed = 0, 0
	if n := o.restore(rk, r); n != 100 || rk.kvUsed != 100 || r.kv != 100 || o.free[rk] != o.perRank {
		t.Fatalf("restore: %d tokens, used %d, free %d", n, rk.kvUsed, o.free[rk])
	}
	if n := o.restore(rk, r); n != 0 {
		t.Fatalf("restored twice: %d", n)
	}
	big := &simReq{kv: o.perRank + 1}
	o.spill(rk, big, 0)
	if _, held := o.held[big]; held {
		t.Fatal("spilled more than the host pool holds")
	}
	if newOffloads(&setup{tp: 1}, memPlan{kvPerToken: 1}) != nil {
		t.Fatal("no kv_offload_gb must mean no offload")
	}
}

// max_model_len is the KV plan: Llama-4 Scout's declared 10M tokens cannot
// be planned on two H100s; 128k can, and more than the model's context is
// refused as vLLM refuses it.
func TestMaxModelLenKnob(t *testing.T) {
	cards := DefaultCards()
	f := cardFromFile(t, "scout", "testdata/hf/llama-4-scout-17b-16e-instruct-fp8-dynamic.json")
	cards.Models = append(cards.Models, f)
	sm := &Simulator{Cards: cards}
	tgt := space.Target{Model: "scout", GPU: "H100", GPUs: 2}
	p := bench.Profile{Name: "p", Dataset: "random", InputLen: 512, OutputLen: 32, NumPrompts: 8, MaxConcurrency: 4, Seed: 1}
	base := space.Config{"engine": "vllm", "tp": int64(2)}
	_, _, err := sm.Evaluate(context.Background(), base, tgt, p, 1)
	if fl, ok := engines.AsFailure(err); !ok || fl.Class != engines.OOM {
		t.Fatalf("10M-token plan: %v, want OOM", err)
	}
	if _, _, err := sm.Evaluate(context.Background(), with1(base, "max_model_len", int64(131072)), tgt, p, 1); err != nil {
		t.Fatalf("max_model_len=131072: %v", err)
	}
	_, _, err = sm.Evaluate(context.Background(), with1(base, "max_model_len", int64(20_000_000)), tgt, p, 1)
	if fl, ok := engines.AsFailure(err); !ok || fl.Class != engines.InvalidConfig {
		t.Fatalf("max_model_len over the model's: %v, want invalid_config", err)
	}
}

func with1(c space.Config, k string, v any) space.Config {
	out := space.Config{k: v}
	for kk, vv := range c {
		if kk != k {
			out[kk] = vv
		}
	}
	return out
}
