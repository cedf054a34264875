package engines

import (
	"fmt"
	"os"
	"strings"

	"github.com/servetune/servetune/space"
)

// trtllm renders `trtllm-serve MODEL` (tensorrt_llm/commands/serve.py,
// PyTorch backend). Only parallelism, batch limits and the KV fraction have
// CLI flags, spelled as ≈1.0 and 1.3.0rc3 both accept them
// (--tp_size, --kv_cache_free_gpu_memory_fraction, --extra_llm_api_options);
// everything else goes into the generated extra options YAML, whose values
// override the CLI's.
type trtllm struct{}

var _ Engine = trtllm{}

// trtllmOptionsFile is the name of the generated extra options YAML.
const trtllmOptionsFile = "extra_llm_api_options.yaml"

func (trtllm) Name() string { return TRTLLM }

// DefaultPort: trtllm-serve's --port defaults to 8000.
func (trtllm) DefaultPort() int { return 8000 }

func (e trtllm) Health() string { return first(e.Probes()) }

// Image is NVIDIA's TensorRT-LLM release image on NGC (it ships
// trtllm-serve).
func (trtllm) Image(version string) string {
	return "nvcr.io/nvidia/tensorrt-llm/release:" + or(version, "latest")
}

// Deployment: checkpoints from Hugging Face into the image's cache.
func (trtllm) Deployment() Deployment { return hfDeployment() }

func (trtllm) Device() Device { return GPU }

// VersionCommand asks the package through python3: trtllm-serve has no
// --version, so the target's program override does not apply.
func (trtllm) VersionCommand(string) []string {
	return []string{"python3", "-c", "import tensorrt_llm; print(tensorrt_llm.__version__)"}
}

// GPUs: tp; data parallelism is attention DP inside the TP group.
func (trtllm) GPUs(cfg space.Config) int { return knobInt(cfg, KnobTP) }

func (trtllm) Knobs() []string {
	return []string{KnobTP, KnobEP, KnobEnableDPAttention, KnobMemFraction, KnobChunkedPrefill,
		KnobMaxRunning, KnobKVCacheDType, KnobCUDAGraphMaxBS, KnobDisableCUDAGraph,
		KnobAttentionBackend, KnobTorchCompile, KnobPrefixCaching, KnobSpeculativeAlgorithm,
		KnobSpeculativeDraftModel, KnobSpeculativeNumTokens, KnobMaxModelLen}
}

func trtllmProgram() []string { return []string{"trtllm-serve"} }

func (trtllm) Render(cfg space.Config, v Version, model string) (Command, error) {
	r := newRenderer("trtllm", cfg, append(trtllmProgram(), model)...)
	r.intFlag(KnobTP, "--tp_size")
	r.intFlag(KnobEP, "--ep_size")
	// A fraction of the memory free after weights and profiling, not of
	// the total as vLLM's --gpu-memory-utilization.
	r.fractionFlag(KnobMemFraction, "--kv_cache_free_gpu_memory_fraction")
	r.intFlag(KnobMaxRunning, "--max_batch_size")
	if n, ok := r.int(KnobChunkedPrefill); ok && n > 0 {
		r.bare("--enable_chunked_prefill")
		r.flag("--max_num_tokens", fmt.Sprint(n))
	}
	trtllmKV(r) // kvknobs.go
	y := trtllmYAML(r, v)
	c, err := r.command(len(trtllmProgram()))
	if err != nil || len(y) == 0 {
		return c, err
	}
	c.Argv = append(c.Argv, "--extra_llm_api_options="+trtllmOptionsFile)
	c.Files = map[string]string{trtllmOptionsFile: writeYAML(y)}
	return c, nil
}

func trtllmYAML(r *renderer, v Version) map[string]any {
	y := map[string]any{}
	kv := map[string]any{}
	sub := func(m map[string]any, k string) map[string]any {
		if _, ok := m[k].(map[string]any); !ok {
			m[k] = map[string]any{}
		}
		return m[k].(map[string]any)
	}
	if on, ok := r.bool(KnobEnableDPAttention); ok && on {
		y["enable_attention_dp"] = true
	}
	if d, ok := r.enum(KnobKVCacheDType, map[string]string{"fp8_e4m3": "fp8"}, []string{"auto", "fp8"}); ok {
		kv["dtype"] = d
	}
	if on, ok := r.bool(KnobPrefixCaching); ok {
		kv["enable_block_reuse"] = on
	}
	if len(kv) > 0 {
		// Up to 1.2.0rc1 the YAML kv_cache_config replaces the CLI's
		// instead of merging with it (merging: NVIDIA/TensorRT-LLM PR
		// #9262), dropping --kv_cache_free_gpu_memory_fraction for the 0.9
		// default; repeating the fraction here is right on every release.
		if f, ok := r.cfg.Float(KnobMemFraction); ok && r.has(KnobMemFraction) && f > 0 && f <= 1 {
			kv["free_gpu_memory_fraction"] = f
		}
		y["kv_cache_config"] = kv
	}
	if off, ok := r.bool(KnobDisableCUDAGraph); ok && off {
		if r.has(KnobCUDAGraphMaxBS) {
			r.fail(KnobCUDAGraphMaxBS, "set while disable_cuda_graph is true")
		}
		y["cuda_graph_config"] = nil // null disables CUDA graphs
	} else if n, ok := r.int(KnobCUDAGraphMaxBS); ok {
		sub(y, "cuda_graph_config")["max_batch_size"] = n
	}
	if on, ok := r.bool(KnobTorchCompile); ok && on {
		y["torch_compile_config"] = map[string]any{} // defaults: fullgraph, no inductor
	}
	if b, ok := r.enum(KnobAttentionBackend, map[string]string{"trtllm": "TRTLLM", "flashinfer": "FLASHINFER", "vanilla": "VANILLA"},
		[]string{"TRTLLM", "FLASHINFER", "VANILLA", "FLASHINFER_STAR_ATTENTION"}); ok {
		y["attn_backend"] = b
	}
	if s := trtllmSpec(r, v); s != nil {
		y["speculative_config"] = s
	}
	return y
}

// trtllm13 is the first release line whose llm_args.py accepts
// decoding_type Eagle3 (PR #10124, merged after the 1.2 release
// candidates); older ones reject it ("Invalid decoding type: Eagle3") and
// take Eagle, which the PyTorch backend runs as Eagle3DecodingConfig.
var trtllm13 = mustVersion("1.3.0")

func trtllmSpec(r *renderer, v Version) map[string]any {
	algo, ok := r.str(KnobSpeculativeAlgorithm)
	if !ok || strings.EqualFold(algo, "none") {
		return nil
	}
	n, hasN := r.int(KnobSpeculativeNumTokens)
	draft, hasDraft := r.str(KnobSpeculativeDraftModel)
	s := map[string]any{}
	switch strings.ToUpper(algo) {
	case "MTP", "NEXTN":
		s["decoding_type"] = "MTP"
		if hasN {
			s["num_nextn_predict_layers"] = n
		}
	case "EAGLE", "EAGLE3":
		// On the PyTorch backend Eagle becomes Eagle3DecodingConfig anyway.
		s["decoding_type"] = "Eagle"
		if strings.EqualFold(algo, "EAGLE3") && v.AtLeast(trtllm13) {
			s["decoding_type"] = "Eagle3"
		}
		if hasN {
			s["max_draft_len"] = n
		}
		if hasDraft {
			s["speculative_model_dir"] = draft
		}
	case "NGRAM":
		s["decoding_type"] = "NGram"
		if hasN {
			s["max_draft_len"] = n
		}
	default:
		r.fail(KnobSpeculativeAlgorithm, "trtllm does not accept %q (accepted: MTP, NEXTN, EAGLE, EAGLE3, NGRAM)", algo)
		return nil
	}
	if hasDraft && s["speculative_model_dir"] == nil {
		r.fail(KnobSpeculativeDraftModel, "trtllm %s decoding takes no draft model", s["decoding_type"])
	}
	return s
}

func (trtllm) Parse(args []string, _ Version) (Parsed, error) {
	args = skipProgram(args, trtllmProgram())
	defs := []flagDef{
		{names: []string{"--tp_size", "--tensor_parallel_size"}, value: true, set: setInt(KnobTP)},
		{names: []string{"--ep_size", "--moe_expert_parallel_size"}, value: true, set: setInt(KnobEP)},
		{names: []string{"--kv_cache_free_gpu_memory_fraction", "--free_gpu_memory_fraction"}, value: true, set: setFloat(KnobMemFraction)},
		{names: []string{"--max_batch_size"}, value: true, set: setInt(KnobMaxRunning)},
		{names: []string{"--enable_chunked_prefill"}, set: func(*parser, string) error { return nil }},
		{names: []string{"--max_num_tokens"}, value: true, set: setInt(KnobChunkedPrefill)},
		{names: []string{"--backend"}, value: true, set: func(_ *parser, v string) error {
			if v != "pytorch" {
				return fmt.Errorf("servetune drives the pytorch backend only, not %q", v)
			}
			return nil
		}},
		{names: []string{"--extra_llm_api_options", "--config"}, value: true, set: parseTRTLLMOptions},
	}
	defs = append(defs, trtllmKVDefs()...)
	defs = append(defs, listenDefs("--host", "--port", "")...)
	out, p, err := parseFlags("trtllm", args, defs, true)
	if err != nil {
		return Parsed{}, err
	}
	if !p.seen["--enable_chunked_prefill"] {
		delete(out.Config, KnobChunkedPrefill) // --max_num_tokens alone is a batch limit, not a chunk size
	}
	return out, nil
}

// parseTRTLLMOptions reads the extra options file the flag names. It is
// the one impure step of Parse: a real trtllm-serve command line is only
// complete with its YAML.
func parseTRTLLMOptions(p *parser, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	y, err := readYAML(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	cfg := p.out.Config
	if on, ok := y["enable_attention_dp"].(bool); ok && on {
		cfg[KnobEnableDPAttention] = true
	}
	if kv, ok := y["kv_cache_config"].(map[string]any); ok {
		if d, ok := kv["dtype"].(string); ok {
			cfg[KnobKVCacheDType] = d
		}
		if on, ok := kv["enable_block_reuse"].(bool); ok {
			cfg[KnobPrefixCaching] = on
		}
		if f, ok := kv["free_gpu_memory_fraction"].(float64); ok {
			cfg[KnobMemFraction] = f
		}
	}
	if g, present := y["cuda_graph_config"]; present {
		if g == nil {
			cfg[KnobDisableCUDAGraph] = true
		} else if m, ok := g.(map[string]any); ok {
			if n, ok := m["max_batch_size"].(int64); ok {
				cfg[KnobCUDAGraphMaxBS] = n
			}
		}
	}
	if _, ok := y["torch_compile_config"].(map[string]any); ok {
		cfg[KnobTorchCompile] = true
	}
	if b, ok := y["attn_backend"].(string); ok {
		cfg[KnobAttentionBackend] = b
	}
	if s, ok := y["speculative_config"].(map[string]any); ok {
		parseTRTLLMSpec(cfg, s)
	}
	for _, k := range []string{"max_batch_size", "max_num_tokens"} {
		if n, ok := y[k].(int64); ok {
			cfg[map[string]string{"max_batch_size": KnobMaxRunning, "max_num_tokens": KnobChunkedPrefill}[k]] = n
		}
	}
	if on, ok := y["enable_chunked_prefill"].(bool); ok && on {
		p.seen["--enable_chunked_prefill"] = true
	}
	return nil
}

func parseTRTLLMSpec(cfg space.Config, s map[string]any) {
	t, _ := s["decoding_type"].(string)
	algo := map[string]string{"MTP": "MTP", "Eagle": "EAGLE", "Eagle3": "EAGLE3", "NGram": "NGRAM"}[t]
	if algo == "" {
		algo = t
	}
	cfg[KnobSpeculativeAlgorithm] = algo
	for _, k := range []string{"num_nextn_predict_layers", "max_draft_len"} {
		if n, ok := s[k].(int64); ok {
			cfg[KnobSpeculativeNumTokens] = n
		}
	}
	for _, k := range []string{"speculative_model_dir", "speculative_model"} {
		if d, ok := s[k].(string); ok {
			cfg[KnobSpeculativeDraftModel] = d
		}
	}
}

// Listen: trtllm-serve has no served-model-name flag; clients send the
// checkpoint name.
func (trtllm) Listen(host string, port int, model, _ string) ([]string, string) {
	return []string{"--host=" + host, "--port=" + itoa(port)}, model
}

// Probes: the HTTP server starts only after the model is loaded, so the
// port refuses connections until then.
func (trtllm) Probes() []string { return []string{"/health", "/v1/models"} }
