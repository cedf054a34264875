package engines

import (
	"slices"
	"strings"

	"github.com/servetune/servetune/space"
)

// sglang renders `python3 -m sglang.launch_server` (python/sglang/srt/
// server_args.py). Flags are written `--flag=value`, the style of the
// GLM-5.2 recommended command; the model keeps `--model-path M`. Spellings
// are those of 0.5.6 and ≈0.5.12-dev, which agree on every flag used here;
// only the accepted values of a few enums differ.
type sglang struct{}

var _ Engine = sglang{}

func (sglang) Name() string { return SGLang }

// DefaultPort: server_args.py's port defaults to 30000.
func (sglang) DefaultPort() int { return 30000 }

func (e sglang) Health() string { return first(e.Probes()) }

// Image is SGLang's own Docker Hub image, tagged by release.
func (sglang) Image(version string) string {
	tag := "latest"
	if version != "" {
		tag = "v" + strings.TrimPrefix(version, "v")
	}
	return "lmsysorg/sglang:" + tag
}

// Deployment: checkpoints from Hugging Face into the image's cache.
func (sglang) Deployment() Deployment { return hfDeployment() }

func (sglang) Device() Device { return GPU }

// VersionCommand asks the package, through the target's python when it
// overrides the program.
func (sglang) VersionCommand(program string) []string {
	return []string{or(program, "python3"), "-c", "import sglang; print(sglang.__version__)"}
}

// GPUs: tp×dp replicas, except that DP attention carves the DP ranks
// inside the TP group (tp GPUs).
func (sglang) GPUs(cfg space.Config) int {
	if on, _ := cfg.Bool(KnobEnableDPAttention); on && cfg.Has(KnobEnableDPAttention) {
		return knobInt(cfg, KnobTP)
	}
	return replicas(cfg)
}

func (sglang) Knobs() []string {
	return append([]string{KnobTP, KnobDP, KnobEnableDPAttention, KnobEP, KnobMemFraction, KnobChunkedPrefill,
		KnobMoEA2ABackend, KnobMaxRunning, KnobDeepEPMode, KnobKVCacheDType, KnobCUDAGraphMaxBS,
		KnobDisableCUDAGraph, KnobAttentionBackend, KnobTorchCompile, KnobPrefixCaching,
		KnobSpeculativeAlgorithm, KnobSpeculativeDraftModel, KnobSpeculativeNumSteps,
		KnobSpeculativeEagleTopK, KnobSpeculativeNumDraftTokens, KnobMaxModelLen, KnobKVOffloadGB}, pdKnobs()...)
}

func sglangProgram() []string { return []string{"python3", "-m", "sglang.launch_server"} }

// Release gates of server_args.py's choices, per the releases that first
// accepted each value (issue 16's reading of the tagged sources; the
// seeds' 0.5.3.post3 accepts none of them).
var (
	// sglangNew is the first release read with the newer enum values
	// (≈0.5.12-dev, upstream main 2026-05-19): megamoe.
	sglangNew = mustVersion("0.5.12")
	// sglang054 accepts --kv-cache-dtype bf16/bfloat16; sglang055
	// fp4_e2m1; sglang056 --moe-a2a-backend ascend_fuseep; sglang059 mori
	// and flashinfer; sglang0510 nixl; sglang0511 --speculative-algorithm
	// DFLASH.
	sglang054  = mustVersion("0.5.4")
	sglang055  = mustVersion("0.5.5")
	sglang056  = mustVersion("0.5.6")
	sglang059  = mustVersion("0.5.9")
	sglang0510 = mustVersion("0.5.10")
	sglang0511 = mustVersion("0.5.11")
	// sglang0514 deprecates --cuda-graph-max-bs (for
	// --cuda-graph-max-bs-decode) and --disable-cuda-graph (for
	// --cuda-graph-backend-decode/prefill=disabled); the old spellings
	// still work but warn.
	sglang0514 = mustVersion("0.5.14")
)

// since returns the values whose release gate v has reached.
func since(v Version, gated []gatedValue) []string {
	var out []string
	for _, g := range gated {
		if v.AtLeast(g.from) {
			out = append(out, g.value)
		}
	}
	return out
}

// gatedValue is an enum value and the first release that accepts it.
type gatedValue struct {
	value string
	from  Version
}

func sglangA2A(v Version) []string {
	return since(v, []gatedValue{{"none", Version{}}, {"deepep", Version{}}, {"mooncake", Version{}},
		{"ascend_fuseep", sglang056}, {"mori", sglang059}, {"flashinfer", sglang059}, {"nixl", sglang0510}, {"megamoe", sglangNew}})
}

func sglangKVDTypes(v Version) []string {
	return since(v, []gatedValue{{"auto", Version{}}, {"fp8_e5m2", Version{}}, {"fp8_e4m3", Version{}},
		{"bf16", sglang054}, {"bfloat16", sglang054}, {"fp4_e2m1", sglang055}})
}

func sglangAlgorithms(v Version) []string {
	return since(v, []gatedValue{{"EAGLE", Version{}}, {"EAGLE3", Version{}}, {"NEXTN", Version{}},
		{"STANDALONE", Version{}}, {"NGRAM", Version{}}, {"DFLASH", sglang0511}})
}

// sglangGraphs renders the CUDA graph knobs in v's spelling.
func sglangGraphs(r *renderer, v Version) {
	if !v.AtLeast(sglang0514) {
		r.intFlag(KnobCUDAGraphMaxBS, "--cuda-graph-max-bs")
		r.trueFlag(KnobDisableCUDAGraph, "--disable-cuda-graph")
		return
	}
	r.intFlag(KnobCUDAGraphMaxBS, "--cuda-graph-max-bs-decode")
	if off, ok := r.bool(KnobDisableCUDAGraph); ok && off {
		r.flag("--cuda-graph-backend-decode", "disabled")
		r.flag("--cuda-graph-backend-prefill", "disabled")
	}
}

func (sglang) Render(cfg space.Config, v Version, model string) (Command, error) {
	r := newRenderer("sglang", cfg, append(sglangProgram(), "--model-path", model)...)
	r.intFlag(KnobTP, "--tp-size")
	r.intFlag(KnobDP, "--dp-size")
	r.trueFlag(KnobEnableDPAttention, "--enable-dp-attention")
	r.intFlag(KnobEP, "--ep-size")
	r.fractionFlag(KnobMemFraction, "--mem-fraction-static")
	r.intFlag(KnobChunkedPrefill, "--chunked-prefill-size") // -1 disables chunked prefill
	if b, ok := r.enum(KnobMoEA2ABackend, nil, sglangA2A(v)); ok && b != "none" {
		r.flag("--moe-a2a-backend", b)
	}
	r.intFlag(KnobMaxRunning, "--max-running-requests")
	if m, ok := r.enum(KnobDeepEPMode, nil, []string{"auto", "normal", "low_latency"}); ok {
		r.flag("--deepep-mode", m)
	}
	if d, ok := r.enum(KnobKVCacheDType, map[string]string{"fp8": "fp8_e4m3"}, sglangKVDTypes(v)); ok {
		r.flag("--kv-cache-dtype", d)
	}
	sglangGraphs(r, v)
	if b, ok := r.str(KnobAttentionBackend); ok {
		r.flag("--attention-backend", strings.ToLower(b))
	}
	r.trueFlag(KnobTorchCompile, "--enable-torch-compile")
	if on, ok := r.bool(KnobPrefixCaching); ok && !on {
		r.bare("--disable-radix-cache") // the radix cache is on by default
	}
	algos := sglangAlgorithms(v)
	// SGLang requests DeepSeek/GLM multi-token prediction as NEXTN (which
	// it rewrites to EAGLE internally).
	if a, ok := r.enum(KnobSpeculativeAlgorithm, map[string]string{"MTP": "NEXTN", "mtp": "NEXTN"}, nil); ok && !strings.EqualFold(a, "none") {
		a = strings.ToUpper(a)
		if !slices.Contains(algos, a) {
			r.fail(KnobSpeculativeAlgorithm, "sglang %s does not accept %q (accepted: %s)", v, a, strings.Join(algos, ", "))
		}
		r.flag("--speculative-algorithm", a)
	}
	if d, ok := r.str(KnobSpeculativeDraftModel); ok {
		r.flag("--speculative-draft-model-path", d)
	}
	r.intFlag(KnobSpeculativeNumSteps, "--speculative-num-steps")
	r.intFlag(KnobSpeculativeEagleTopK, "--speculative-eagle-topk")
	r.intFlag(KnobSpeculativeNumDraftTokens, "--speculative-num-draft-tokens")
	sglangKV(r) // kvknobs.go
	return r.command(len(sglangProgram()))
}

func (sglang) Parse(args []string, _ Version) (Parsed, error) {
	for i := 0; i < len(args) && i < 3; i++ {
		if args[i] == "sglang.launch_server" {
			args = args[i+1:]
			break
		}
	}
	defs := []flagDef{
		{names: []string{"--model-path", "--model"}, value: true, set: func(p *parser, v string) error { p.out.Model = v; return nil }},
		{names: []string{"--tp-size", "--tensor-parallel-size"}, value: true, set: setInt(KnobTP)},
		{names: []string{"--dp-size", "--data-parallel-size"}, value: true, set: setInt(KnobDP)},
		{names: []string{"--enable-dp-attention"}, set: setBool(KnobEnableDPAttention, true)},
		{names: []string{"--ep-size", "--ep", "--expert-parallel-size"}, value: true, set: setInt(KnobEP)},
		{names: []string{"--mem-fraction-static"}, value: true, set: setFloat(KnobMemFraction)},
		{names: []string{"--chunked-prefill-size"}, value: true, set: setInt(KnobChunkedPrefill)},
		{names: []string{"--moe-a2a-backend"}, value: true, set: setStr(KnobMoEA2ABackend)},
		{names: []string{"--max-running-requests"}, value: true, set: setInt(KnobMaxRunning)},
		{names: []string{"--deepep-mode"}, value: true, set: setStr(KnobDeepEPMode)},
		{names: []string{"--kv-cache-dtype"}, value: true, set: setStr(KnobKVCacheDType)},
		{names: []string{"--cuda-graph-max-bs", "--cuda-graph-max-bs-decode"}, value: true, set: setInt(KnobCUDAGraphMaxBS)},
		{names: []string{"--disable-cuda-graph"}, set: setBool(KnobDisableCUDAGraph, true)},
		{names: []string{"--cuda-graph-backend-decode", "--cuda-graph-backend-prefill"}, value: true, set: func(p *parser, v string) error {
			if v == "disabled" {
				p.out.Config[KnobDisableCUDAGraph] = true
			}
			return nil
		}},
		{names: []string{"--attention-backend"}, value: true, set: setStr(KnobAttentionBackend)},
		{names: []string{"--enable-torch-compile"}, set: setBool(KnobTorchCompile, true)},
		{names: []string{"--disable-radix-cache"}, set: setBool(KnobPrefixCaching, false)},
		{names: []string{"--speculative-algorithm"}, value: true, set: setStr(KnobSpeculativeAlgorithm)},
		{names: []string{"--speculative-draft-model-path", "--speculative-draft-model"}, value: true, set: setStr(KnobSpeculativeDraftModel)},
		{names: []string{"--speculative-num-steps"}, value: true, set: setInt(KnobSpeculativeNumSteps)},
		{names: []string{"--speculative-eagle-topk"}, value: true, set: setInt(KnobSpeculativeEagleTopK)},
		{names: []string{"--speculative-num-draft-tokens"}, value: true, set: setInt(KnobSpeculativeNumDraftTokens)},
	}
	defs = append(defs, sglangKVDefs()...)
	defs = append(defs, listenDefs("--host", "--port", "--served-model-name")...)
	out, _, err := parseFlags("sglang", args, defs, false)
	if err == nil {
		sglangHiCacheTotal(out)
	}
	return out, err
}

func (sglang) Listen(host string, port int, model, served string) ([]string, string) {
	args := []string{"--host=" + host, "--port=" + itoa(port)}
	if served != "" && served != model {
		args = append(args, "--served-model-name="+served)
		return args, served
	}
	return args, model
}

// Probes: /health answers 503 until SGLang's own warm-up request has
// succeeded, so it alone implies readiness; /v1/models confirms the
// OpenAI front end is mounted.
func (sglang) Probes() []string { return []string{"/health", "/v1/models"} }
