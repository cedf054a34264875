package sim

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/servetune/servetune/internal/suggest"
)

//go:embed cards/*.toml
var builtinCards embed.FS

// GPUCard is one accelerator's datasheet.
type GPUCard struct {
	Name       string   `toml:"name"`
	Aliases    []string `toml:"aliases"`
	MemGiB     float64  `toml:"mem_gib"`
	HBMTBs     float64  `toml:"hbm_tbs"`
	BF16TFLOPs float64  `toml:"bf16_tflops"`
	// FP8TFLOPs is 0 on GPUs without FP8 tensor cores.
	FP8TFLOPs float64 `toml:"fp8_tflops"`
	NVLinkGBs float64 `toml:"nvlink_gbs"`
	PCIeGBs   float64 `toml:"pcie_gbs"`
	// Generation is the GPU's architecture (ampere, ada, hopper,
	// blackwell): what its kernels achieve of the datasheet depends on
	// it (uncertainty.go). Absent: unknown, an extrapolation.
	Generation string `toml:"generation,omitempty"`
	// NetGBs is the per-GPU network bandwidth to another node (one
	// direction, GB/s: a 400 Gb/s RDMA NIC per GPU is 50), which moves a
	// disaggregated deployment's KV cache across nodes (pdlink.go);
	// absent: the card's pcie_gbs, the NIC's own host link.
	NetGBs float64 `toml:"net_gbs,omitzero"`
}

// ModelCard is what the simulator needs to know about a model's shape.
type ModelCard struct {
	Name    string   `toml:"name"`
	Aliases []string `toml:"aliases"`
	// WeightDtype is the checkpoint's weight type ("bf16", "fp8", or a
	// quantised "int4", "int8", "fp4"); a name ending in -FP8 or the
	// model_variant knob overrides it.
	WeightDtype string `toml:"weight_dtype"`
	// WeightBits is the mean stored bits per parameter of an int or FP4
	// checkpoint (scales and 16-bit embeddings included; absent: the
	// dtype's width).
	WeightBits      float64 `toml:"weight_bits,omitzero"`
	TotalParamsB    float64 `toml:"total_params_b"`
	ActiveParamsB   float64 `toml:"active_params_b"`
	ExpertParamsB   float64 `toml:"expert_params_b"`
	AttnParamsB     float64 `toml:"attn_params_b"`
	Layers          int     `toml:"layers"`
	MoELayers       int     `toml:"moe_layers"`
	Hidden          int     `toml:"hidden"`
	Vocab           int     `toml:"vocab"`
	Attention       string  `toml:"attention"` // MHA, GQA or MLA
	Heads           int     `toml:"heads"`
	KVHeads         int     `toml:"kv_heads"`
	HeadDim         int     `toml:"head_dim"`
	VHeadDim        int     `toml:"v_head_dim"` // MLA value head dim; default head_dim
	KVLoraRank      int     `toml:"kv_lora_rank"`
	RopeDim         int     `toml:"rope_dim"`
	Experts         int     `toml:"experts"`
	TopK            int     `toml:"top_k"`
	MoEIntermediate int     `toml:"moe_intermediate"`
	MTP             bool    `toml:"mtp"`
	MaxContext      int     `toml:"max_context"`
	// MaxModelLen is the context servers run the model with (servetune
	// card --max-model-len), what the KV cache is planned for unless a
	// max_model_len knob says otherwise; MaxContext stays the limit such
	// a knob may not pass. 0: MaxContext.
	MaxModelLen int `toml:"max_model_len,omitzero"`
	// KVLayers and WindowLayers split the layers when some keep only the
	// last SlidingWindow tokens (sliding-window or chunked attention);
	// layers counted in neither are linear attention with a constant
	// state. Absent: every layer keeps the whole context.
	KVLayers      int `toml:"kv_layers,omitzero"`
	WindowLayers  int `toml:"window_layers,omitzero"`
	SlidingWindow int `toml:"sliding_window,omitzero"`
	// Efficiency factors relative to the engines' calibration (factors.go;
	// absent = 1), fitted per model by `servetune calibrate`.
	ExpertEff   float64 `toml:"expert_eff,omitzero"`
	CommEff     float64 `toml:"comm_eff,omitzero"`
	MemOverhead float64 `toml:"mem_overhead,omitzero"`
	// MTPAcceptance is the MTP/NEXTN heads' per-token acceptance (absent =
	// 0.8).
	MTPAcceptance float64 `toml:"mtp_acceptance,omitzero"`
	// TokensPerChunk is how many generated tokens a streamed chunk with
	// text carries on average (absent = 1): a tokenizer whose tokens can
	// decode to no text (byte-fallback pieces of a character, skipped
	// special tokens) sends fewer text chunks than tokens, and a client
	// that times text chunks (inference-perf, servetune bench) measures a
	// longer inter-token gap. A property of the model's output stream,
	// measured, not fitted: ITL ÷ ((e2e − TTFT) ÷ (tokens − 1)).
	TokensPerChunk float64 `toml:"tokens_per_chunk,omitzero"`
}

// DraftCard is a speculative-decoding draft model.
type DraftCard struct {
	Name    string  `toml:"name"`
	ParamsB float64 `toml:"params_b"`
	// Acceptance is the per-token acceptance rate on English chat text.
	Acceptance float64 `toml:"acceptance"`
}

// Cards is a catalogue of GPUs, models and drafts.
type Cards struct {
	GPUs   []GPUCard   `toml:"gpu"`
	Models []ModelCard `toml:"model"`
	Drafts []DraftCard `toml:"draft"`
	// Replaced says which cards added ones replaced, and by which name
	// (cardmerge.go), for the command line to tell the user.
	Replaced []string `toml:"-" json:"-"`
}

// DefaultCards returns the embedded catalogue.
func DefaultCards() *Cards {
	c := &Cards{}
	for _, name := range []string{"cards/gpus.toml", "cards/models.toml"} {
		b, err := builtinCards.ReadFile(name)
		if err != nil {
			panic(fmt.Sprintf("sim: embedded %s: %v", name, err)) // build is broken
		}
		if err := c.Add(bytes.NewReader(b)); err != nil {
			panic(fmt.Sprintf("sim: embedded %s: %v", name, err))
		}
	}
	return c
}

// Add merges cards from a TOML document ([[gpu]], [[model]], [[draft]]
// tables); a card with an existing name replaces the old one, so users can
// correct a built-in estimate.
func (c *Cards) Add(r io.Reader) error {
	var more Cards
	md, err := toml.NewDecoder(r).Decode(&more)
	if err != nil {
		return fmt.Errorf("sim cards: %w", err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return fmt.Errorf("sim cards: unknown keys %v", un)
	}
	for _, g := range more.GPUs {
		if key, msg := g.problem(); key != "" {
			return fmt.Errorf("sim cards: gpu %q: %s %s", g.Name, key, msg)
		}
	}
	for _, m := range more.Models {
		if err := m.validate(); err != nil {
			return err
		}
	}
	for _, d := range more.Drafts {
		if key, msg := d.problem(); key != "" {
			return fmt.Errorf("sim cards: draft %q: %s %s", d.Name, key, msg)
		}
	}
	c.merge(more)
	return nil
}

// problem is the first key of a GPU card that is missing or impossible.
func (g GPUCard) problem() (key, msg string) {
	if key, msg := numberProblem(g); key != "" {
		return key, msg
	}
	for _, f := range []struct {
		key string
		v   float64
	}{{"mem_gib", g.MemGiB}, {"hbm_tbs", g.HBMTBs}, {"bf16_tflops", g.BF16TFLOPs}} {
		if !(f.v > 0) {
			return f.key, "is required and must be positive"
		}
	}
	if g.Name == "" {
		return "name", "is required"
	}
	return "", ""
}

func (m ModelCard) validate() error {
	if key, msg := m.problem(); key != "" {
		return fmt.Errorf("sim cards: model %q: %s %s", m.Name, key, msg)
	}
	return nil
}

// problem is the first key of a model card that is missing or
// inconsistent, with why.
func (m ModelCard) problem() (key, msg string) {
	if key, msg := numberProblem(m); key != "" {
		return key, msg
	}
	if key, msg := m.enumProblem(); key != "" {
		return key, msg
	}
	switch {
	case m.Name == "":
		return "name", "is required"
	case !(m.TotalParamsB > 0):
		return "total_params_b", "is required and must be positive"
	case m.Layers <= 0:
		return "layers", "is required and must be positive"
	case m.Hidden <= 0:
		return "hidden", "is required and must be positive"
	case m.Attention != "MLA" && m.KVHeads <= 0:
		return "kv_heads", fmt.Sprintf("is required for %s attention", orGQA(m.Attention))
	case m.Attention != "MLA" && m.HeadDim <= 0:
		return "head_dim", fmt.Sprintf("is required for %s attention", orGQA(m.Attention))
	case m.Attention == "MLA" && m.KVLoraRank <= 0:
		return "kv_lora_rank", "is required for MLA attention"
	case m.Experts > 0 && m.TopK <= 0:
		return "top_k", "is required for a MoE model (experts > 0)"
	case m.Experts > 0 && !(m.ExpertParamsB > 0):
		return "expert_params_b", "is required for a MoE model (experts > 0)"
	case m.KVLayers < 0 || m.WindowLayers < 0 || m.KVLayers+m.WindowLayers > m.Layers:
		return "kv_layers", fmt.Sprintf("kv_layers + window_layers must be within 0..layers (%d)", m.Layers)
	case m.WindowLayers > 0 && m.SlidingWindow <= 0:
		return "sliding_window", "is required with window_layers"
	case m.MaxModelLen < 0 || (m.MaxContext > 0 && m.MaxModelLen > m.MaxContext):
		return "max_model_len", fmt.Sprintf("must be between 0 and max_context (%d)", m.MaxContext)
	case m.WeightBits < 0 || m.WeightBits > 32:
		return "weight_bits", "must be between 0 and 32"
	case m.TokensPerChunk != 0 && !(m.TokensPerChunk >= 1 && m.TokensPerChunk <= 8):
		return "tokens_per_chunk", "must be between 1 and 8"
	case m.ActiveParamsB > m.TotalParamsB*1.0001:
		return "active_params_b", fmt.Sprintf("%.3g is more than total_params_b %.3g", m.ActiveParamsB, m.TotalParamsB)
	}
	return "", ""
}

// bytesPerParam is the stored bytes per parameter of an int or FP4
// checkpoint (WeightBits), else dflt (the dtype's: 2, or 1 for FP8).
func (m ModelCard) bytesPerParam(dflt float64) float64 {
	if m.WeightBits > 0 && m.WeightDtype != "bf16" && m.WeightDtype != "fp8" {
		return m.WeightBits / 8
	}
	return dflt
}

// kvLayers is how many layers' KV one token of a request of length n
// costs on average: full-attention layers whole, window layers for the
// last SlidingWindow tokens only (the pool is planned for requests of
// the model's length), linear-attention layers nothing per token.
func (m ModelCard) kvLayers(n int) float64 {
	if m.KVLayers == 0 && m.WindowLayers == 0 {
		return float64(m.Layers)
	}
	w := float64(m.WindowLayers)
	if n > m.SlidingWindow && n > 0 {
		w *= float64(m.SlidingWindow) / float64(n)
	}
	return float64(m.KVLayers) + w
}

func orGQA(a string) string {
	if a == "" {
		return "GQA"
	}
	return a
}

// GPU finds a GPU card by name or alias, case-insensitively.
func (c *Cards) GPU(name string) (GPUCard, error) {
	for _, g := range c.GPUs {
		if matches(name, g.Name, g.Aliases) {
			return g, nil
		}
	}
	known := names(c.GPUs, func(g GPUCard) string { return g.Name })
	return GPUCard{}, fmt.Errorf("sim: no GPU card %q%s (known: %s)", name, suggest.Hint(name, known), strings.Join(known, ", "))
}

// Model finds a model card by name, alias or Hugging Face id. A name ending
// in -FP8 selects FP8 weights.
func (c *Cards) Model(name string) (ModelCard, error) {
	for _, m := range c.Models {
		if matches(name, m.Name, m.Aliases) {
			if strings.HasSuffix(strings.ToUpper(name), "-FP8") {
				m.WeightDtype = "fp8"
			}
			return m, nil
		}
	}
	known := names(c.Models, func(m ModelCard) string { return m.Name })
	return ModelCard{}, fmt.Errorf("sim: no model card %q%s (known: %s; add one with a [[model]] table)", name, suggest.Hint(name, known), strings.Join(known, ", "))
}

// Draft finds a draft card; ok is false for an unknown draft.
func (c *Cards) Draft(name string) (DraftCard, bool) {
	for _, d := range c.Drafts {
		if strings.EqualFold(d.Name, name) {
			return d, true
		}
	}
	return DraftCard{}, false
}

func matches(q, name string, aliases []string) bool {
	if strings.EqualFold(q, name) {
		return true
	}
	for _, a := range aliases {
		if strings.EqualFold(q, a) {
			return true
		}
	}
	return false
}

func names[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
