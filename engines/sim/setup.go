package sim

import (
	"fmt"
	"strings"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
)

// setup is a config resolved against the cards: every knob has its
// effective value, engine defaults applied.
type setup struct {
	engine string
	eng    engineModel
	coef   Coefficients // the vLLM step model's (FittedVLLM unless overridden)
	model  ModelCard
	gpu    GPUCard
	gpus   int

	// ctxLimit is the model's own context (the card's max_context), which
	// no max_model_len may exceed; 0: model.MaxContext.
	ctxLimit int

	weightBytes float64 // per parameter
	fp8Compute  bool

	tp, dp, ep int
	dpAttn     bool
	// attnTP is how many GPUs share one rank's attention heads.
	attnTP int

	memFrac    float64
	memFracSet bool
	chunk      int // prefill tokens per step; 0 = unchunked
	maxRunning int // per rank; 0 = bounded by KV only
	kvBytes    float64
	kvDtype    string

	deepep     bool
	deepepMode string

	cudaGraph   bool
	graphBS     int
	attnBackend string
	compile     bool
	prefixCache bool
	spec        specSetup
	// autoLen is vLLM's --max-model-len auto: plan no KV for a full
	// context, serve what fits.
	autoLen bool
	// offloadGiB is the kv_offload_gb knob (offload.go).
	offloadGiB float64
}

type specSetup struct {
	on                       bool
	algo                     string
	steps, topk, draftTokens int
	acceptance, draftParamsB float64
}

func invalid(msg string, lines ...string) error {
	if len(lines) == 0 {
		lines = []string{msg}
	}
	return &engines.Failure{Class: engines.InvalidConfig, Message: msg, Lines: lines}
}

// resolve applies the imitated engine's defaults and argument checks.
func resolve(cards *Cards, cfg space.Config, t space.Target) (*setup, error) {
	s := &setup{engine: cfg.Engine(), coef: FittedVLLM()}
	if s.engine == "" || s.engine == space.Default {
		s.engine = t.Engine
	}
	em, ok := engineModelOf(s.engine)
	if !ok {
		return nil, invalid(fmt.Sprintf("engine %q is not simulated (%s)", s.engine, simulatedNames()))
	}
	s.eng = em
	var err error
	// The gpu knob, when searched, is the card this trial runs on.
	if s.gpu, err = cards.GPU(t.GPUOf(cfg)); err != nil {
		return nil, err
	}
	modelName := t.Model
	if s.model, err = cards.Model(modelName); err != nil {
		return nil, err
	}
	// The card's max_model_len is the planned context; max_context stays
	// the limit a max_model_len knob is checked against (Launch.apply).
	s.ctxLimit = s.model.MaxContext
	if s.model.MaxModelLen > 0 {
		s.model.MaxContext = s.model.MaxModelLen
	}
	s.gpus = max(t.GPUs, 1)
	if v := cfg.String("model_variant"); cfg.Has("model_variant") {
		switch strings.ToLower(v) {
		case "fp8":
			s.model.WeightDtype = "fp8"
		case "bf16", "fp16", "auto":
			s.model.WeightDtype = "bf16"
		default:
			return nil, invalid(fmt.Sprintf("model_variant %q: the simulator knows FP8 and BF16", v))
		}
	}
	s.weightBytes = 2
	if s.model.WeightDtype == "fp8" {
		s.weightBytes = 1
		s.fp8Compute = s.gpu.FP8TFLOPs > 0
	}
	s.weightBytes = s.model.bytesPerParam(s.weightBytes) // int4/int8/FP4 checkpoints (cards.go)
	if err := s.parallel(cfg); err != nil {
		return nil, err
	}
	if err := s.memory(cfg); err != nil {
		return nil, err
	}
	if err := s.kvKnobs(cfg); err != nil { // memory.go: max_model_len, kv_offload_gb
		return nil, err
	}
	if err := s.kernels(cfg); err != nil {
		return nil, err
	}
	if err := s.speculative(cards, cfg); err != nil {
		return nil, err
	}
	return s, nil
}

func intKnob(cfg space.Config, k string, def int) (int, error) {
	if !cfg.Has(k) {
		return def, nil
	}
	v, ok := cfg.Int(k)
	if !ok {
		return 0, invalid(fmt.Sprintf("%s=%v is not an integer", k, cfg[k]))
	}
	return int(v), nil
}

func boolKnob(cfg space.Config, k string) bool {
	b, _ := cfg.Bool(k)
	return cfg.Has(k) && b
}

func (s *setup) parallel(cfg space.Config) error {
	var err error
	if s.tp, err = intKnob(cfg, "tp", 1); err != nil {
		return err
	}
	if s.dp, err = intKnob(cfg, "dp", 1); err != nil {
		return err
	}
	if s.ep, err = intKnob(cfg, "ep", 1); err != nil {
		return err
	}
	if s.tp < 1 || s.dp < 1 || s.ep < 1 {
		return invalid(fmt.Sprintf("tp=%d dp=%d ep=%d must be positive", s.tp, s.dp, s.ep))
	}
	s.dpAttn = boolKnob(cfg, "enable_dp_attention")
	moe := s.model.Experts > 0
	// vLLM and TRT-LLM run DP ranks of an MoE model in lockstep sharing the
	// experts, which is what SGLang calls DP attention.
	if s.eng.lockstepMoEDP && s.dp > 1 && moe {
		s.dpAttn = true
	}
	if s.eng.dpAttnInTP && s.dpAttn && s.tp%s.dp != 0 {
		return invalid("DP attention needs tp_size % dp_size == 0",
			"Traceback (most recent call last):",
			"  File \"sglang/srt/server_args.py\", in __post_init__",
			fmt.Sprintf("    assert self.tp_size %% self.dp_size == 0  # tp_size=%d dp_size=%d", s.tp, s.dp),
			"AssertionError")
	}
	need := s.tp * s.dp
	s.attnTP = s.tp
	if s.dpAttn && s.eng.dpAttnInTP {
		need = s.tp
		s.attnTP = s.tp / s.dp
	}
	if need > s.gpus {
		return invalid(fmt.Sprintf("world size %d is larger than the %d GPUs of the target", need, s.gpus),
			fmt.Sprintf("ValueError: World size (%d) is larger than the number of available GPUs (%d) in this node.", need, s.gpus))
	}
	if s.ep > s.tp {
		return invalid(fmt.Sprintf("ep_size %d exceeds tp_size %d", s.ep, s.tp))
	}
	heads := s.model.Heads
	if heads > 0 && heads%s.attnTP != 0 {
		return invalid(fmt.Sprintf("%d attention heads are not divisible by tensor parallel size %d", heads, s.attnTP),
			fmt.Sprintf("ValueError: Total number of attention heads (%d) must be divisible by tensor parallel size (%d).", heads, s.attnTP))
	}
	a2a := cfg.String("moe_a2a_backend")
	s.deepep = cfg.Has("moe_a2a_backend") && a2a == "deepep"
	if s.deepep {
		if !moe {
			return invalid("moe_a2a_backend=deepep needs an MoE model")
		}
		if !s.eng.deepEP {
			return invalid(fmt.Sprintf("moe_a2a_backend is an SGLang option; %s does not take it", s.engine))
		}
		s.ep = s.tp // SGLang forces ep_size = tp_size for DeepEP
		s.deepepMode = "auto"
		if cfg.Has("deepep_mode") {
			s.deepepMode = cfg.String("deepep_mode")
		}
		switch s.deepepMode {
		case "auto", "normal", "low_latency":
		default:
			return invalid(fmt.Sprintf("deepep_mode %q: want auto, normal or low_latency", s.deepepMode))
		}
	}
	return nil
}

func (s *setup) memory(cfg space.Config) error {
	if cfg.Has("mem_fraction") {
		f, ok := cfg.Float("mem_fraction")
		if !ok || f <= 0 || f >= 1 {
			return invalid(fmt.Sprintf("mem_fraction=%v must be in (0, 1)", cfg["mem_fraction"]))
		}
		s.memFrac, s.memFracSet = f, true
	}
	var err error
	if s.chunk, err = intKnob(cfg, "chunked_prefill", s.eng.rules.defaultChunk(s)); err != nil {
		return err
	}
	if s.chunk == -1 {
		s.chunk = 0
	}
	if s.chunk < 0 {
		return invalid(fmt.Sprintf("chunked_prefill=%d", s.chunk))
	}
	if s.maxRunning, err = intKnob(cfg, "max_running", 0); err != nil {
		return err
	}
	if s.maxRunning < 0 {
		return invalid(fmt.Sprintf("max_running=%d", s.maxRunning))
	}
	if s.maxRunning == 0 {
		s.maxRunning = s.eng.rules.defaultMaxRunning(s)
	} else if s.eng.splitMaxRunning {
		// SGLang divides the user's max_running_requests among DP ranks.
		s.maxRunning = max(1, s.maxRunning/s.dp)
	}
	if s.eng.batchedTokensCheck && s.chunk > 0 && s.chunk < s.maxRunning && cfg.Has("chunked_prefill") {
		return invalid(fmt.Sprintf("max_num_batched_tokens (%d) must be greater than or equal to max_num_seqs (%d)", s.chunk, s.maxRunning),
			fmt.Sprintf("ValueError: max_num_batched_tokens (%d) must be greater than or equal to max_num_seqs (%d).", s.chunk, s.maxRunning))
	}
	s.kvDtype = "auto"
	if cfg.Has("kv_cache_dtype") {
		s.kvDtype = cfg.String("kv_cache_dtype")
	}
	switch s.kvDtype {
	case "auto", "bf16", "bfloat16", "fp16", "float16":
		s.kvBytes = 2
	case "fp8", "fp8_e4m3", "fp8_e5m2":
		s.kvBytes = 1
	default:
		return invalid(fmt.Sprintf("kv_cache_dtype %q is not known", s.kvDtype))
	}
	return nil
}

func (s *setup) kernels(cfg space.Config) error {
	s.cudaGraph = s.eng.graphs && !boolKnob(cfg, "disable_cuda_graph")
	var err error
	if s.graphBS, err = intKnob(cfg, "cuda_graph_max_bs", s.eng.rules.defaultGraphBS(s)); err != nil {
		return err
	}
	s.attnBackend = "default"
	if cfg.Has("attention_backend") {
		s.attnBackend = cfg.String("attention_backend")
		if _, ok := attentionBackends[s.attnBackend]; !ok {
			return invalid(fmt.Sprintf("attention_backend %q is not simulated", s.attnBackend))
		}
	}
	s.compile = boolKnob(cfg, "torch_compile")
	s.prefixCache = s.eng.prefixCacheDefault
	if cfg.Has("prefix_caching") {
		s.prefixCache = boolKnob(cfg, "prefix_caching")
	}
	return nil
}

func (s *setup) speculative(cards *Cards, cfg space.Config) error {
	algo := strings.ToUpper(cfg.String("speculative_algorithm"))
	if !cfg.Has("speculative_algorithm") || algo == "NONE" || algo == "" {
		return nil
	}
	sp := specSetup{on: true, algo: algo}
	draft := cfg.String("speculative_draft_model")
	hasDraft := cfg.Has("speculative_draft_model") && draft != "" && draft != "none"
	switch algo {
	case "EAGLE", "EAGLE3":
		if !hasDraft {
			return invalid(fmt.Sprintf("%s needs speculative_draft_model", algo),
				"ValueError: speculative_draft_model_path is required for EAGLE speculative decoding")
		}
		d, ok := cards.Draft(draft)
		if !ok {
			d = DraftCard{Name: draft, ParamsB: 0.02 * s.model.ActiveParamsB, Acceptance: 0.6}
		}
		sp.acceptance, sp.draftParamsB = d.Acceptance, d.ParamsB
		if algo == "EAGLE" {
			sp.acceptance *= 0.92
		}
	case "NEXTN", "MTP":
		if !s.model.MTP {
			return invalid(fmt.Sprintf("%s needs a model with MTP heads; %s has none", algo, s.model.Name))
		}
		sp.acceptance = s.model.mtpAcceptance()
		sp.draftParamsB = s.model.ActiveParamsB / float64(max(s.model.Layers, 1))
	case "NGRAM":
		sp.acceptance = 0.35
	default:
		return invalid(fmt.Sprintf("speculative_algorithm %q is not simulated", algo))
	}
	// SGLang's auto-chosen (steps, topk, draft tokens) when unset.
	var err error
	if sp.steps, err = firstInt(cfg, 3, "speculative_num_steps", "speculative_num_tokens"); err != nil {
		return err
	}
	if sp.topk, err = intKnob(cfg, "speculative_eagle_topk", 1); err != nil {
		return err
	}
	if sp.draftTokens, err = intKnob(cfg, "speculative_num_draft_tokens", sp.steps+1); err != nil {
		return err
	}
	if sp.steps < 1 || sp.topk < 1 || sp.draftTokens < 1 {
		return invalid("speculative steps, topk and draft tokens must be positive")
	}
	if sp.topk == 1 && sp.draftTokens != sp.steps+1 && s.eng.fixDraftTokens && cfg.Has("speculative_num_draft_tokens") {
		// SGLang silently fixes this combination.
		sp.draftTokens = sp.steps + 1
	}
	s.spec = sp
	return nil
}

func firstInt(cfg space.Config, def int, keys ...string) (int, error) {
	for _, k := range keys {
		if cfg.Has(k) {
			return intKnob(cfg, k, def)
		}
	}
	return def, nil
}
