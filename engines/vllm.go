package engines

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/servetune/servetune/space"
)

// vllm renders `vllm serve MODEL` (vllm/engine/arg_utils.py). Flags are
// written `--flag=value`, as the seeds' `--tensor-parallel-size=8`. Two
// readings of the source set the version gates: ≈0.11.0 (2025-10-01) and
// ≈0.22/0.23-dev (2026-05-29); gates sit at the release that first shipped
// each new spelling.
type vllm struct{}

var _ Engine = vllm{}

var (
	// vllm0111 added --all2all-backend (PR #26732), --max-cudagraph-capture-size
	// (PR #26016) and renamed compilation "level" to "mode" (PR #26355);
	// it is also the first release with --nnodes/--node-rank/--master-addr
	// for the multiprocessing executor across nodes (PR #23691; see
	// vllm_ranks.go).
	vllm0111 = mustVersion("0.11.1")
	// vllm013 added --attention-backend (PR #26315); before it the backend
	// is the env var VLLM_ATTENTION_BACKEND. It also removed --cuda-graph-sizes.
	vllm013 = mustVersion("0.13.0")
	// vllm011 is the first release whose CacheDType (vllm/config/cache.py)
	// has fp8_ds_mla (DeepSeek-V3.2's sparse MLA cache).
	vllm011 = mustVersion("0.11.0")
	// vllm014 is the first release after draft-model speculative decoding
	// (PR #24322) was merged: 0.13.0 still raises "Speculative decoding
	// with draft model is not supported yet" (vllm/config/speculative.py
	// __post_init__; vllm-project/vllm#31883).
	vllm014 = mustVersion("0.14.0")
	// vllm018 is the first release after the 0.17 cut, where CacheDType
	// gained float16 (PR #37199) and nvfp4 (PR #37332).
	vllm018 = mustVersion("0.18.0")
)

// vllmKVDTypes are the --kv-cache-dtype values release v's parser accepts.
func vllmKVDTypes(v Version) []string {
	return since(v, []gatedValue{{"auto", Version{}}, {"bfloat16", Version{}}, {"fp8", Version{}}, {"fp8_e4m3", Version{}},
		{"fp8_e5m2", Version{}}, {"fp8_inc", Version{}}, {"fp8_ds_mla", vllm011}, {"float16", vllm018}, {"nvfp4", vllm018}})
}

func (vllm) Name() string { return VLLM }

// DefaultPort: `vllm serve --port` defaults to 8000.
func (vllm) DefaultPort() int { return 8000 }

func (e vllm) Health() string { return first(e.Probes()) }

// Image is vLLM's own OpenAI-server image; its tags are the releases
// with a leading v (v0.15.1).
func (vllm) Image(version string) string {
	tag := "latest"
	if version != "" {
		tag = "v" + strings.TrimPrefix(version, "v")
	}
	return "vllm/vllm-openai:" + tag
}

// Deployment: checkpoints from Hugging Face into the image's cache.
func (vllm) Deployment() Deployment { return hfDeployment() }

func (vllm) Device() Device { return GPU }

func (vllm) VersionCommand(program string) []string {
	return []string{or(program, VLLM), "--version"}
}

// GPUs: tp×dp replicas.
func (vllm) GPUs(cfg space.Config) int { return replicas(cfg) }

func (vllm) Knobs() []string {
	return append([]string{KnobTP, KnobDP, KnobEP, KnobMemFraction, KnobChunkedPrefill, KnobMaxRunning,
		KnobKVCacheDType, KnobMoEA2ABackend, KnobDeepEPMode, KnobSpeculativeAlgorithm,
		KnobSpeculativeDraftModel, KnobSpeculativeNumTokens, KnobCUDAGraphMaxBS, KnobTorchCompile,
		KnobDisableCUDAGraph, KnobAttentionBackend, KnobPrefixCaching, KnobMaxModelLen, KnobKVOffloadGB}, pdKnobs()...)
}

func vllmProgram() []string { return []string{"vllm", "serve"} }

// specConfig is --speculative-config; field order is the JSON key order
// users write ({"method":"mtp","num_speculative_tokens":1}).
type specConfig struct {
	Method    string `json:"method"`
	Model     string `json:"model,omitempty"`
	NumTokens int64  `json:"num_speculative_tokens,omitempty"`
}

// compileConfig is --compilation-config. Level is the ≤0.11.0 name of Mode.
type compileConfig struct {
	Level         *int64 `json:"level,omitempty"`
	Mode          *int64 `json:"mode,omitempty"`
	CUDAGraphMode string `json:"cudagraph_mode,omitempty"`
}

func (vllm) Render(cfg space.Config, v Version, model string) (Command, error) {
	r := newRenderer("vllm", cfg, append(vllmProgram(), model)...)
	r.intFlag(KnobTP, "--tensor-parallel-size")
	r.intFlag(KnobDP, "--data-parallel-size")
	vllmEP(r)
	r.fractionFlag(KnobMemFraction, "--gpu-memory-utilization")
	if n, ok := r.int(KnobChunkedPrefill); ok {
		// With chunked prefill (the default) the per-step token budget is
		// the chunk size; a non-positive size means "off", as SGLang's -1.
		if n > 0 {
			r.flag("--max-num-batched-tokens", fmt.Sprint(n))
		} else {
			r.bare("--no-enable-chunked-prefill")
		}
	}
	r.intFlag(KnobMaxRunning, "--max-num-seqs")
	if d, ok := r.enum(KnobKVCacheDType, map[string]string{"bf16": "bfloat16"}, vllmKVDTypes(v)); ok {
		r.flag("--kv-cache-dtype", d)
	}
	if b := vllmAll2All(r); b != "" {
		if v.AtLeast(vllm0111) {
			r.flag("--all2all-backend", b)
		} else {
			r.env["VLLM_ALL2ALL_BACKEND"] = b
		}
	}
	vllmSpec(r, v)
	if n, ok := r.int(KnobCUDAGraphMaxBS); ok {
		if v.AtLeast(vllm0111) {
			r.flag("--max-cudagraph-capture-size", fmt.Sprint(n))
		} else {
			r.flag("--cuda-graph-sizes", fmt.Sprint(n)) // one value V captures [1,2,4]+range(8,V+1,8)
		}
	}
	vllmCompile(r, v)
	if b, ok := r.str(KnobAttentionBackend); ok {
		b = strings.ToUpper(b) // AttentionBackendEnum names
		if v.AtLeast(vllm013) {
			r.flag("--attention-backend", b)
		} else {
			r.env["VLLM_ATTENTION_BACKEND"] = b
		}
	}
	if on, ok := r.bool(KnobPrefixCaching); ok {
		if on {
			r.bare("--enable-prefix-caching")
		} else {
			r.bare("--no-enable-prefix-caching")
		}
	}
	vllmKV(r, v) // kvknobs.go
	return r.command(len(vllmProgram()))
}

// vllmEP: vLLM has no expert-parallel size; --enable-expert-parallel makes
// it TP×DP. So ep must be 1 (off) or exactly tp×dp.
func vllmEP(r *renderer) {
	ep, ok := r.int(KnobEP)
	if !ok || ep == 1 {
		return
	}
	tp, dp := int64(1), int64(1)
	if n, ok := r.cfg.Int(KnobTP); ok && r.has(KnobTP) {
		tp = n
	}
	if n, ok := r.cfg.Int(KnobDP); ok && r.has(KnobDP) {
		dp = n
	}
	if ep != tp*dp {
		r.fail(KnobEP, "vllm derives the expert-parallel size as tp×dp = %d; %s, not %d", tp*dp, epChoices(tp*dp), ep)
		return
	}
	r.bare("--enable-expert-parallel")
}

// vllmAll2All maps moe_a2a_backend (+ deepep_mode) to vLLM's all-to-all
// backend name; vLLM-native names pass through.
func vllmAll2All(r *renderer) string {
	b, ok := r.str(KnobMoEA2ABackend)
	mode, hasMode := r.str(KnobDeepEPMode)
	if !ok || b == "none" {
		if hasMode {
			r.fail(KnobDeepEPMode, "vllm needs moe_a2a_backend=deepep for a DeepEP mode")
		}
		return ""
	}
	if b != "deepep" {
		if hasMode {
			r.fail(KnobDeepEPMode, "vllm needs moe_a2a_backend=deepep for a DeepEP mode")
		}
		return b
	}
	switch mode {
	case "low_latency":
		return "deepep_low_latency"
	case "", "normal", "auto":
		// vLLM has no auto mode; high throughput is SGLang's prefill choice.
		return "deepep_high_throughput"
	}
	r.fail(KnobDeepEPMode, "vllm does not accept %q (accepted: auto, normal, low_latency)", mode)
	return ""
}

func vllmSpec(r *renderer, v Version) {
	algo, ok := r.str(KnobSpeculativeAlgorithm)
	if !ok || strings.EqualFold(algo, "none") {
		for _, k := range []string{KnobSpeculativeDraftModel, KnobSpeculativeNumTokens} {
			if r.has(k) {
				r.fail(k, "set without a speculative_algorithm")
			}
		}
		return
	}
	methods := map[string]string{"EAGLE": "eagle", "EAGLE3": "eagle3", "MTP": "mtp", "NEXTN": "mtp",
		"NGRAM": "ngram", "STANDALONE": "draft_model", "MEDUSA": "medusa"}
	s := specConfig{Method: strings.ToLower(algo)}
	if m, known := methods[strings.ToUpper(algo)]; known {
		s.Method = m
	}
	if s.Method == "draft_model" && !v.AtLeast(vllm014) {
		r.fail(KnobSpeculativeAlgorithm, "vllm %s does not run a draft model (STANDALONE): it raises \"Speculative decoding with draft model is not supported yet\" before 0.14.0", v)
		return
	}
	s.Model, _ = r.str(KnobSpeculativeDraftModel)
	s.NumTokens, _ = r.int(KnobSpeculativeNumTokens)
	r.flag("--speculative-config", compactJSON(s))
}

func vllmCompile(r *renderer, v Version) {
	var c compileConfig
	if on, ok := r.bool(KnobTorchCompile); ok {
		mode := int64(0) // NONE
		if on {
			mode = 3 // VLLM_COMPILE, the default of `vllm serve`
		}
		if v.AtLeast(vllm0111) {
			c.Mode = &mode
		} else {
			c.Level = &mode
		}
	}
	if off, ok := r.bool(KnobDisableCUDAGraph); ok && off {
		c.CUDAGraphMode = "NONE"
	} else if on, ok := r.bool(KnobTorchCompile); ok && !on {
		// Without compilation vLLM defaults cudagraph_mode to NONE
		// (vllm/config/vllm.py, VllmConfig.__post_init__), so mode 0 alone
		// would turn CUDA graphs off too. Full decode graphs need no
		// compilation: keep them, so torch_compile=false changes
		// compilation and, unavoidably, only the piecewise (prefill) graphs.
		c.CUDAGraphMode = "FULL_DECODE_ONLY"
	}
	if c != (compileConfig{}) {
		r.flag("--compilation-config", compactJSON(c))
	}
}

func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // only plain structs of strings and ints
	return strings.TrimSpace(b.String())
}

func (vllm) Parse(args []string, _ Version) (Parsed, error) {
	args = skipProgram(args, vllmProgram())
	defs := []flagDef{
		{names: []string{"--tensor-parallel-size", "-tp"}, value: true, set: setInt(KnobTP)},
		{names: []string{"--data-parallel-size", "-dp"}, value: true, set: setInt(KnobDP)},
		{names: []string{"--enable-expert-parallel", "-ep"}, set: func(*parser, string) error { return nil }},
		{names: []string{"--no-enable-expert-parallel"}, set: func(*parser, string) error { return nil }},
		{names: []string{"--gpu-memory-utilization"}, value: true, set: setFloat(KnobMemFraction)},
		{names: []string{"--max-num-batched-tokens"}, value: true, set: setInt(KnobChunkedPrefill)},
		{names: []string{"--no-enable-chunked-prefill"}, set: func(p *parser, _ string) error { p.out.Config[KnobChunkedPrefill] = int64(-1); return nil }},
		{names: []string{"--enable-chunked-prefill"}, set: func(*parser, string) error { return nil }},
		{names: []string{"--max-num-seqs"}, value: true, set: setInt(KnobMaxRunning)},
		{names: []string{"--kv-cache-dtype"}, value: true, set: setStr(KnobKVCacheDType)},
		{names: []string{"--all2all-backend"}, value: true, set: parseAll2All},
		{names: []string{"--speculative-config", "-sc"}, value: true, set: parseSpec},
		{names: []string{"--max-cudagraph-capture-size", "--cuda-graph-sizes"}, value: true, set: setInt(KnobCUDAGraphMaxBS)},
		{names: []string{"--compilation-config", "-cc"}, value: true, set: parseCompile},
		{names: []string{"--enforce-eager"}, set: func(p *parser, _ string) error {
			p.out.Config[KnobTorchCompile] = false
			p.out.Config[KnobDisableCUDAGraph] = true
			return nil
		}},
		{names: []string{"--attention-backend"}, value: true, set: func(p *parser, v string) error {
			p.out.Config[KnobAttentionBackend] = strings.ToUpper(v)
			return nil
		}},
		{names: []string{"--enable-prefix-caching"}, set: setBool(KnobPrefixCaching, true)},
		{names: []string{"--no-enable-prefix-caching"}, set: setBool(KnobPrefixCaching, false)},
	}
	defs = append(defs, vllmKVDefs()...)
	defs = append(defs, listenDefs("--host", "--port", "--served-model-name")...)
	out, p, err := parseFlags("vllm", args, defs, true)
	if err != nil {
		return Parsed{}, err
	}
	if p.seen["--enable-expert-parallel"] {
		tp, _ := out.Config.Int(KnobTP)
		dp, _ := out.Config.Int(KnobDP)
		out.Config[KnobEP] = max(tp, 1) * max(dp, 1)
	}
	return out, nil
}

func parseAll2All(p *parser, v string) error {
	switch v {
	case "deepep_low_latency":
		p.out.Config[KnobMoEA2ABackend] = "deepep"
		p.out.Config[KnobDeepEPMode] = "low_latency"
	case "deepep_high_throughput":
		p.out.Config[KnobMoEA2ABackend] = "deepep"
	default:
		p.out.Config[KnobMoEA2ABackend] = v
	}
	return nil
}

func parseSpec(p *parser, v string) error {
	var s specConfig
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	algos := map[string]string{"eagle": "EAGLE", "eagle3": "EAGLE3", "mtp": "MTP", "ngram": "NGRAM",
		"draft_model": "STANDALONE", "medusa": "MEDUSA", "deepseek_mtp": "MTP"}
	a, ok := algos[s.Method]
	if !ok {
		a = s.Method
	}
	p.out.Config[KnobSpeculativeAlgorithm] = a
	if s.Model != "" {
		p.out.Config[KnobSpeculativeDraftModel] = s.Model
	}
	if s.NumTokens != 0 {
		p.out.Config[KnobSpeculativeNumTokens] = s.NumTokens
	}
	return nil
}

func parseCompile(p *parser, v string) error {
	var c compileConfig
	if err := json.Unmarshal([]byte(v), &c); err != nil {
		return fmt.Errorf("invalid JSON: %w", err)
	}
	mode := c.Mode
	if mode == nil {
		mode = c.Level
	}
	if mode != nil {
		p.out.Config[KnobTorchCompile] = *mode != 0
	}
	if strings.EqualFold(c.CUDAGraphMode, "NONE") {
		p.out.Config[KnobDisableCUDAGraph] = true
	}
	return nil
}

func (vllm) Listen(host string, port int, model, served string) ([]string, string) {
	args := []string{"--host=" + host, "--port=" + itoa(port)}
	if served != "" && served != model {
		args = append(args, "--served-model-name="+served)
		return args, served
	}
	return args, model
}

// Probes: vLLM binds its socket before loading the model and answers HTTP
// only once uvicorn runs, so each probe needs a short timeout; /health is
// 200 only when the engine core is alive.
func (vllm) Probes() []string { return []string{"/health", "/v1/models"} }

// epChoices says which ep values vLLM can honour: 1, or tp×dp when that
// is another value ("ep must be 1 or 1" offered no choice).
func epChoices(tpdp int64) string {
	if tpdp == 1 {
		return "ep must be 1 (raise tp or dp to use expert parallelism)"
	}
	return fmt.Sprintf("ep must be 1 or %d", tpdp)
}
