package sim

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/BurntSushi/toml"
)

// hfConfig is the subset of a Hugging Face config.json that fixes a
// model's shape. Field names follow the Llama/Qwen/DeepSeek/GLM configs;
// the aliases for expert counts differ between families.
type hfConfig struct {
	NameOrPath       string          `json:"_name_or_path"`
	ModelType        string          `json:"model_type"`
	TextConfig       json.RawMessage `json:"text_config"`
	Hidden           int             `json:"hidden_size"`
	Layers           int             `json:"num_hidden_layers"`
	Heads            int             `json:"num_attention_heads"`
	KVHeads          int             `json:"num_key_value_heads"`
	HeadDim          int             `json:"head_dim"`
	Intermediate     int             `json:"intermediate_size"`
	Vocab            int             `json:"vocab_size"`
	MaxPos           int             `json:"max_position_embeddings"`
	Tied             bool            `json:"tie_word_embeddings"`
	TorchDtype       string          `json:"torch_dtype"`
	Dtype            string          `json:"dtype"`
	Quant            *hfQuant        `json:"quantization_config"`
	RoutedExperts    int             `json:"n_routed_experts"`
	NumExperts       int             `json:"num_experts"`
	LocalExperts     int             `json:"num_local_experts"`
	TopK             int             `json:"num_experts_per_tok"`
	MoEIntermediate  int             `json:"moe_intermediate_size"`
	SharedExperts    int             `json:"n_shared_experts"`
	FirstDense       int             `json:"first_k_dense_replace"`
	KVLoraRank       int             `json:"kv_lora_rank"`
	QLoraRank        int             `json:"q_lora_rank"`
	QKNopeDim        int             `json:"qk_nope_head_dim"`
	QKRopeDim        int             `json:"qk_rope_head_dim"`
	VHeadDim         int             `json:"v_head_dim"`
	NextNLayers      int             `json:"num_nextn_predict_layers"`
	MTPLayers        int             `json:"mtp_num_hidden_layers"`
	MLPOnlyLayers    []int           `json:"mlp_only_layers"`
	DecoderSparseStp int             `json:"decoder_sparse_step"`
	// Llama-4: MoE every interleave_moe_layer_step layers (or the listed
	// moe_layers), dense layers of intermediate_size_mlp, and one shared
	// expert of intermediate_size beside the routed ones.
	InterleaveMoE   int   `json:"interleave_moe_layer_step"`
	MoELayerList    []int `json:"moe_layers"`
	IntermediateMLP int   `json:"intermediate_size_mlp"`
	// Qwen2/Qwen3-Next MoE: one shared expert of this size.
	SharedExpertInter int `json:"shared_expert_intermediate_size"`
	hfAttnLayers
}

// CardFromHFConfig builds a model card named name from a Hugging Face
// config.json: the shape (layers, hidden size, heads, KV heads, experts,
// active experts, MLA ranks), the weight dtype, and parameter counts
// derived from the shape. An empty name takes the config's _name_or_path.
func CardFromHFConfig(name string, r io.Reader) (ModelCard, error) {
	var c hfConfig
	if err := json.NewDecoder(r).Decode(&c); err != nil {
		return ModelCard{}, fmt.Errorf("config.json: %w", err)
	}
	if len(c.TextConfig) > 0 && c.Hidden == 0 {
		// Multimodal wrappers keep the language model's shape here.
		outer := c
		if err := json.Unmarshal(c.TextConfig, &c); err != nil {
			return ModelCard{}, fmt.Errorf("config.json: text_config: %w", err)
		}
		c.NameOrPath = outer.NameOrPath
		if c.Quant == nil {
			c.Quant = outer.Quant
		}
	}
	if name == "" {
		name = c.NameOrPath
	}
	m, err := c.card(name)
	if err != nil {
		return ModelCard{}, err
	}
	return m, m.validate()
}

func (c hfConfig) card(name string) (ModelCard, error) {
	if name == "" {
		return ModelCard{}, fmt.Errorf("config.json: no _name_or_path; give the card a name")
	}
	var bad []string
	for _, f := range []struct {
		key string
		v   int
	}{{"hidden_size", c.Hidden}, {"num_hidden_layers", c.Layers}, {"num_attention_heads", c.Heads}, {"vocab_size", c.Vocab}} {
		if f.v <= 0 || f.v > 1<<24 {
			bad = append(bad, f.key)
		}
	}
	if len(bad) > 0 {
		return ModelCard{}, fmt.Errorf("config.json: %s missing or out of range", strings.Join(bad, ", "))
	}
	if err := c.checkShape(); err != nil {
		return ModelCard{}, err
	}
	m := ModelCard{Name: name, Layers: c.Layers, Hidden: c.Hidden, Vocab: c.Vocab, Heads: c.Heads, MaxContext: c.MaxPos,
		MTP: c.NextNLayers > 0 || c.MTPLayers > 0}
	attn := c.attention(&m)
	c.layerKinds(&m)
	dense, moeLayers := c.layerSplit()
	routed, active := c.experts(&m, moeLayers)
	emb := float64(c.Vocab * c.Hidden)
	if !c.Tied {
		emb *= 2
	}
	mlp := float64(dense) * 3 * float64(c.Hidden) * float64(c.denseIntermediate())
	m.MoELayers = moeLayers
	total := float64(c.Layers)*attn + mlp + routed + c.shared(moeLayers) + emb
	m.AttnParamsB = round3(float64(c.Layers) * attn / 1e9)
	m.ExpertParamsB = round3(routed / 1e9)
	m.TotalParamsB = round3(total / 1e9)
	m.ActiveParamsB = round3((float64(c.Layers)*attn + mlp + active + c.shared(moeLayers) + emb) / 1e9)
	m.WeightDtype, m.WeightBits = c.Quant.weights(total, emb)
	return m, nil
}

// denseIntermediate is the MLP width of the dense layers.
func (c hfConfig) denseIntermediate() int {
	if c.IntermediateMLP > 0 {
		return c.IntermediateMLP
	}
	return c.Intermediate
}

// checkShape refuses sizes no model has, so the derived counts stay
// meaningful.
func (c hfConfig) checkShape() error {
	// A slice, not a map: the first bad key named must not depend on map
	// order.
	for _, f := range []struct {
		k string
		v int
	}{{"num_key_value_heads", c.KVHeads}, {"head_dim", c.HeadDim}, {"intermediate_size", c.Intermediate},
		{"moe_intermediate_size", c.MoEIntermediate}, {"n_shared_experts", c.SharedExperts}, {"first_k_dense_replace", c.FirstDense},
		{"kv_lora_rank", c.KVLoraRank}, {"q_lora_rank", c.QLoraRank}, {"qk_nope_head_dim", c.QKNopeDim}, {"qk_rope_head_dim", c.QKRopeDim},
		{"v_head_dim", c.VHeadDim}, {"max_position_embeddings", c.MaxPos}, {"num_experts", c.expertCount()}, {"num_experts_per_tok", c.TopK},
		{"intermediate_size_mlp", c.IntermediateMLP}, {"shared_expert_intermediate_size", c.SharedExpertInter},
		{"interleave_moe_layer_step", c.InterleaveMoE}, {"sliding_window", c.SlidingWindow}, {"attention_chunk_size", c.AttnChunk}} {
		if f.v < 0 || f.v > 1<<24 {
			return fmt.Errorf("config.json: %s = %d out of range", f.k, f.v)
		}
	}
	if e := c.expertCount(); e > 0 && (c.TopK < 1 || c.TopK > e) {
		return fmt.Errorf("config.json: num_experts_per_tok = %d must be in 1..%d", c.TopK, e)
	}
	return nil
}

// attention fills the attention shape and returns its parameters per layer.
func (c hfConfig) attention(m *ModelCard) float64 {
	h, nh := float64(c.Hidden), float64(c.Heads)
	if c.KVLoraRank > 0 {
		m.Attention = "MLA"
		m.KVLoraRank, m.RopeDim = c.KVLoraRank, c.QKRopeDim
		m.HeadDim, m.VHeadDim = c.QKNopeDim+c.QKRopeDim, c.VHeadDim
		qk := float64(m.HeadDim)
		q := h * nh * qk
		if c.QLoraRank > 0 {
			q = h*float64(c.QLoraRank) + float64(c.QLoraRank)*nh*qk
		}
		kv := h*float64(c.KVLoraRank+c.QKRopeDim) + float64(c.KVLoraRank)*nh*float64(c.QKNopeDim+c.VHeadDim)
		return q + kv + nh*float64(c.VHeadDim)*h
	}
	m.KVHeads, m.HeadDim = c.KVHeads, c.HeadDim
	if m.KVHeads <= 0 {
		m.KVHeads = c.Heads
	}
	if m.HeadDim <= 0 {
		m.HeadDim = c.Hidden / c.Heads
	}
	m.Attention = "GQA"
	if m.KVHeads == c.Heads {
		m.Attention = "MHA"
	}
	hd, kvh := float64(m.HeadDim), float64(m.KVHeads)
	return 2*h*nh*hd + 2*h*kvh*hd
}

// layerSplit counts dense and MoE layers.
func (c hfConfig) layerSplit() (dense, moe int) {
	if c.expertCount() == 0 {
		return c.Layers, 0
	}
	step := max(c.DecoderSparseStp, c.InterleaveMoE, 1)
	only := map[int]bool{}
	for _, l := range c.MLPOnlyLayers {
		only[l] = true
	}
	listed := map[int]bool{}
	for _, l := range c.MoELayerList {
		listed[l] = true
	}
	for l := range c.Layers {
		isMoE := l >= c.FirstDense && !only[l] && (l+1)%step == 0
		if len(listed) > 0 {
			isMoE = listed[l]
		}
		if !isMoE {
			dense++
		} else {
			moe++
		}
	}
	return dense, moe
}

func (c hfConfig) expertCount() int { return max(c.RoutedExperts, c.NumExperts, c.LocalExperts) }

// experts fills the MoE shape and returns all routed and active routed
// expert parameters.
func (c hfConfig) experts(m *ModelCard, moeLayers int) (routed, active float64) {
	e := c.expertCount()
	if e == 0 || moeLayers == 0 {
		return 0, 0
	}
	inter := c.MoEIntermediate
	if inter == 0 {
		inter = c.Intermediate
	}
	m.Experts, m.TopK, m.MoEIntermediate = e, c.TopK, inter
	per := 3 * float64(c.Hidden) * float64(inter)
	router := float64(c.Hidden * e)
	return float64(moeLayers) * (float64(e)*per + router), float64(moeLayers) * (float64(c.TopK)*per + router)
}

// shared is the parameters of the shared experts every token passes
// through beside its routed ones: DeepSeek's n_shared_experts of the
// routed size, Qwen-MoE's one of shared_expert_intermediate_size (with
// its gate), Llama-4's one of intermediate_size.
func (c hfConfig) shared(moeLayers int) float64 {
	h := float64(c.Hidden)
	per := 0.0
	switch {
	case c.SharedExperts > 0:
		per = float64(c.SharedExperts) * 3 * h * float64(c.MoEIntermediate)
	case c.SharedExpertInter > 0:
		per = 3*h*float64(c.SharedExpertInter) + h
	case strings.HasPrefix(c.ModelType, "llama4") && c.expertCount() > 0:
		per = 3 * h * float64(c.Intermediate)
	}
	return float64(moeLayers) * per
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// CardTOML renders cards as a [[model]] document that Cards.Add (and so
// --cards) reads back.
func CardTOML(w io.Writer, ms ...ModelCard) error {
	return toml.NewEncoder(w).Encode(struct {
		Models []ModelCard `toml:"model"`
	}{ms})
}
