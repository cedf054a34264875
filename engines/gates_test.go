package engines

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// gateCase renders one config on one engine release and expects either a
// rendered fragment or a refusal. Each names the release and the source
// it follows (issue 16, item 6).
type gateCase struct {
	name    string // release and source
	engine  string
	version string
	cfg     space.Config
	want    string // in the command (argv, env and files), or
	refused string // in the error
}

func TestReleaseGates(t *testing.T) {
	for _, c := range []gateCase{
		// TensorRT-LLM ≤ 1.2.0rc1, tensorrt_llm/commands/serve.py: the YAML
		// kv_cache_config replaces the CLI's (merged from PR #9262 on).
		{"trtllm 1.0.0 serve.py: the fraction rides in the YAML kv_cache_config", "trtllm", "1.0.0",
			space.Config{KnobMemFraction: 0.7, KnobPrefixCaching: true}, "kv_cache_config:\n  enable_block_reuse: true\n  free_gpu_memory_fraction: 0.7", ""},
		// llm_args.py DecodingBaseConfig.from_dict: "Eagle3" is a decoding
		// type from PR #10124 (1.3.0) on; older releases raise "Invalid
		// decoding type: Eagle3".
		{"trtllm 1.2.0 llm_args.py: EAGLE3 is decoding_type Eagle", "trtllm", "1.2.0",
			space.Config{KnobSpeculativeAlgorithm: "EAGLE3"}, "decoding_type: Eagle\n", ""},
		{"trtllm 1.3.0 llm_args.py (PR #10124): EAGLE3 is decoding_type Eagle3", "trtllm", "1.3.0",
			space.Config{KnobSpeculativeAlgorithm: "EAGLE3"}, "decoding_type: Eagle3\n", ""},
		// vllm/config/cache.py CacheDType.
		{"vllm 0.17.1 config/cache.py: no float16 (PR #37199)", "vllm", "0.17.1", space.Config{KnobKVCacheDType: "float16"}, "", `does not accept "float16"`},
		{"vllm 0.17.1 config/cache.py: no nvfp4 (PR #37332)", "vllm", "0.17.1", space.Config{KnobKVCacheDType: "nvfp4"}, "", `does not accept "nvfp4"`},
		{"vllm 0.18.0 config/cache.py: float16", "vllm", "0.18.0", space.Config{KnobKVCacheDType: "float16"}, "--kv-cache-dtype=float16", ""},
		{"vllm 0.11.0 config/cache.py: fp8_ds_mla", "vllm", "0.11.0", space.Config{KnobKVCacheDType: "fp8_ds_mla"}, "--kv-cache-dtype=fp8_ds_mla", ""},
		// vllm/config/speculative.py __post_init__ raises for draft_model
		// until PR #24322 (0.13.0 still does: vllm-project/vllm#31883).
		{"vllm 0.13.0 config/speculative.py: no draft model", "vllm", "0.13.0", space.Config{KnobSpeculativeAlgorithm: "STANDALONE"}, "", "not supported yet"},
		{"vllm 0.14.0 config/speculative.py (PR #24322): draft_model", "vllm", "0.14.0",
			space.Config{KnobSpeculativeAlgorithm: "STANDALONE", KnobSpeculativeDraftModel: "d"}, `{"method":"draft_model","model":"d"}`, ""},
		// vllm/config/vllm.py: with compilation mode NONE cudagraph_mode
		// defaults to NONE; torch_compile=false keeps full decode graphs.
		{"vllm 0.12.0 config/vllm.py: torch_compile=false keeps decode graphs", "vllm", "0.12.0",
			space.Config{KnobTorchCompile: false}, `--compilation-config='{"mode":0,"cudagraph_mode":"FULL_DECODE_ONLY"}'`, ""},
		{"vllm 0.12.0: torch_compile=false with disable_cuda_graph", "vllm", "0.12.0",
			space.Config{KnobTorchCompile: false, KnobDisableCUDAGraph: true}, `--compilation-config='{"mode":0,"cudagraph_mode":"NONE"}'`, ""},
		// sglang/srt/server_args.py choices of --kv-cache-dtype,
		// --moe-a2a-backend and --speculative-algorithm.
		{"sglang 0.5.3.post3 server_args.py: no bf16 KV (0.5.4)", "sglang", "0.5.3.post3", space.Config{KnobKVCacheDType: "bf16"}, "", `does not accept "bf16"`},
		{"sglang 0.5.4 server_args.py: no fp4_e2m1 KV (0.5.5)", "sglang", "0.5.4", space.Config{KnobKVCacheDType: "fp4_e2m1"}, "", `does not accept "fp4_e2m1"`},
		{"sglang 0.5.5 server_args.py: fp4_e2m1 KV", "sglang", "0.5.5", space.Config{KnobKVCacheDType: "fp4_e2m1"}, "--kv-cache-dtype=fp4_e2m1", ""},
		{"sglang 0.5.3.post3 server_args.py: no ascend_fuseep (0.5.6)", "sglang", "0.5.3.post3", space.Config{KnobMoEA2ABackend: "ascend_fuseep"}, "", `does not accept "ascend_fuseep"`},
		{"sglang 0.5.9 server_args.py: mori", "sglang", "0.5.9", space.Config{KnobMoEA2ABackend: "mori"}, "--moe-a2a-backend=mori", ""},
		{"sglang 0.5.9 server_args.py: flashinfer", "sglang", "0.5.9", space.Config{KnobMoEA2ABackend: "flashinfer"}, "--moe-a2a-backend=flashinfer", ""},
		{"sglang 0.5.9 server_args.py: no nixl (0.5.10)", "sglang", "0.5.9", space.Config{KnobMoEA2ABackend: "nixl"}, "", `does not accept "nixl"`},
		{"sglang 0.5.10 server_args.py: nixl", "sglang", "0.5.10", space.Config{KnobMoEA2ABackend: "nixl"}, "--moe-a2a-backend=nixl", ""},
		{"sglang 0.5.10 server_args.py: no DFLASH (0.5.11)", "sglang", "0.5.10", space.Config{KnobSpeculativeAlgorithm: "DFLASH"}, "", `does not accept "DFLASH"`},
		{"sglang 0.5.11 server_args.py: DFLASH", "sglang", "0.5.11", space.Config{KnobSpeculativeAlgorithm: "DFLASH"}, "--speculative-algorithm=DFLASH", ""},
		// server_args.py ≥ 0.5.14: --cuda-graph-max-bs is a
		// DeprecatedAliasStoreAction of --cuda-graph-max-bs-decode, and
		// --disable-cuda-graph gives way to the per-phase backends.
		{"sglang 0.5.13 server_args.py: old graph spellings", "sglang", "0.5.13",
			space.Config{KnobCUDAGraphMaxBS: int64(64)}, "--cuda-graph-max-bs=64", ""},
		{"sglang 0.5.14 server_args.py: --cuda-graph-max-bs-decode", "sglang", "0.5.14",
			space.Config{KnobCUDAGraphMaxBS: int64(64)}, "--cuda-graph-max-bs-decode=64", ""},
		{"sglang 0.5.14 server_args.py: graphs disabled per phase", "sglang", "0.5.14",
			space.Config{KnobDisableCUDAGraph: true}, "--cuda-graph-backend-decode=disabled --cuda-graph-backend-prefill=disabled", ""},
		{"sglang 0.5.13 server_args.py: --disable-cuda-graph", "sglang", "0.5.13",
			space.Config{KnobDisableCUDAGraph: true}, "--disable-cuda-graph", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tgt := space.Target{Model: "m", Engine: c.engine, Engines: map[string]space.EngineTarget{c.engine: {Version: c.version}}}
			cmd, err := Render(c.cfg, tgt)
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Errorf("Render = %v, %v; want a refusal mentioning %q", cmd.Shell(), err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := cmd.Shell()
			for _, name := range slices.Sorted(maps.Keys(cmd.Files)) {
				got += "\n" + cmd.Files[name]
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("command lacks %q:\n%s", c.want, got)
			}
		})
	}
}

// What sglang ≥ 0.5.14 is given reads back into the same knobs.
func TestSGLangNewGraphSpellingsParse(t *testing.T) {
	cfg, err := parse("sglang", []string{"--cuda-graph-max-bs-decode=64", "--cuda-graph-backend-decode=disabled", "--cuda-graph-backend-prefill=disabled"})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := cfg.Int(KnobCUDAGraphMaxBS); n != 64 || !cfg.Has(KnobDisableCUDAGraph) {
		t.Errorf("Parse = %v", cfg)
	}
}
