package gguf

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/servetune/servetune/bench"
)

// LlamaConfig shapes a tiny llama-architecture model.
type LlamaConfig struct {
	Dim    int // embedding width
	Layers int
	FFN    int // feed-forward width
	Heads  int
	// KVHeads is the number of key/value heads (grouped-query attention);
	// 0 means Heads.
	KVHeads int
	// Vocab is the total number of tokens; 0 means every token the
	// tokenizer defines (specials, 256 bytes, word pieces). A smaller value
	// drops word pieces from the end; a larger one adds filler pieces.
	Vocab int
	// Context is the training context length written to the metadata.
	Context int
	Seed    uint64
}

// DefaultLlama is small enough that 48 requests run in seconds on two CPU
// cores, large enough that engine settings (threads, batch, parallel
// slots) change its throughput measurably.
func DefaultLlama() LlamaConfig {
	return LlamaConfig{Dim: 256, Layers: 4, FFN: 704, Heads: 4, Context: 4096, Seed: 1}
}

func (c LlamaConfig) kvHeads() int {
	if c.KVHeads == 0 {
		return c.Heads
	}
	return c.KVHeads
}

// Validate reports every impossible shape at once.
func (c LlamaConfig) Validate() error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if c.Dim < 8 || c.Dim > 1<<14 {
		bad("dim must be in [8, 16384], not %d", c.Dim)
	}
	if c.Layers < 1 || c.Layers > 256 {
		bad("layers must be in [1, 256], not %d", c.Layers)
	}
	if c.FFN < 1 || c.FFN > 1<<16 {
		bad("ffn must be in [1, 65536], not %d", c.FFN)
	}
	switch {
	case c.Heads < 1:
		bad("heads must be >= 1, not %d", c.Heads)
	case c.Dim%c.Heads != 0:
		bad("dim %d must be divisible by heads %d", c.Dim, c.Heads)
	case (c.Dim/c.Heads)%2 != 0:
		bad("head size dim/heads = %d must be even (rotary embeddings rotate pairs)", c.Dim/c.Heads)
	case c.kvHeads() < 1 || c.Heads%c.kvHeads() != 0:
		bad("heads %d must be divisible by kv heads %d", c.Heads, c.kvHeads())
	}
	if c.Vocab != 0 && c.Vocab < firstPiece+1 {
		bad("vocab must be 0 (all pieces) or >= %d (specials, 256 bytes and one piece), not %d", firstPiece+1, c.Vocab)
	}
	if c.Vocab > 1<<17 {
		bad("vocab must be <= %d, not %d", 1<<17, c.Vocab)
	}
	if c.Context < 16 {
		bad("context must be >= 16, not %d", c.Context)
	}
	if len(errs) > 0 {
		return fmt.Errorf("llama config: %v", errs)
	}
	return nil
}

// Parameters is the number of weights the model has.
func (c LlamaConfig) Parameters() int {
	v := len(Tokens(c.Vocab).Text)
	kv := c.kvHeads() * (c.Dim / c.Heads)
	block := 2*c.Dim + 2*c.Dim*c.Dim + 2*c.Dim*kv + 3*c.Dim*c.FFN
	return 2*v*c.Dim + c.Dim + c.Layers*block
}

// Token ids of the special tokens.
const (
	UnkID = 0
	BOSID = 1
	EOSID = 2
	// firstByte is <0x00>; bytes are ids firstByte … firstByte+255.
	firstByte  = 3
	firstPiece = firstByte + 256
)

// SentencePiece token types, as llama.cpp reads tokenizer.ggml.token_type.
const (
	tokenNormal  int32 = 1
	tokenUnknown int32 = 2
	tokenControl int32 = 3
	tokenByte    int32 = 6
)

// Vocabulary is an SPM tokenizer's tokens.
type Vocabulary struct {
	Text   []string
	Scores []float32
	Types  []int32
}

// Each of the load generator's prompt words (bench.PromptWords) gets its
// chain of prefixes as pieces ("▁t", "▁th", "▁the"): SentencePiece merges
// two symbols only when the result is a piece, so the chain is what lets a
// prompt of n words tokenize to about n tokens, as the profile's input_len
// intends.

// Tokens returns the tokenizer for a vocab size (0 = all pieces): <unk>,
// <s>, </s>, the 256 byte tokens, "▁" and the word-prefix pieces, then
// filler pieces up to vocab.
func Tokens(vocab int) Vocabulary {
	var v Vocabulary
	add := func(text string, typ int32) {
		v.Text = append(v.Text, text)
		v.Types = append(v.Types, typ)
		v.Scores = append(v.Scores, 0)
	}
	add("<unk>", tokenUnknown)
	add("<s>", tokenControl)
	add("</s>", tokenControl)
	for b := 0; b < 256; b++ {
		add(fmt.Sprintf("<0x%02X>", b), tokenByte)
	}
	seen := map[string]bool{}
	piece := func(p string) {
		if !seen[p] {
			seen[p] = true
			add(p, tokenNormal)
			// Longer pieces score higher, as in a trained SPM model.
			v.Scores[len(v.Scores)-1] = -1 / float32(len(p))
		}
	}
	piece("▁")
	for _, w := range bench.PromptWords() {
		for i := 1; i <= len(w); i++ {
			piece("▁" + w[:i])
		}
	}
	for i := 0; len(v.Text) < vocab; i++ {
		piece(fmt.Sprintf("▁x%d", i))
	}
	if vocab > 0 && len(v.Text) > vocab {
		v.Text, v.Scores, v.Types = v.Text[:vocab], v.Scores[:vocab], v.Types[:vocab]
	}
	return v
}

// emittable reports whether the model may generate token id: word pieces
// and printable ASCII bytes, so the streamed text is valid UTF-8 and each
// token arrives as its own chunk. Never EOS, BOS, <unk> or other bytes.
func (v Vocabulary) emittable(id int) bool {
	if v.Types[id] == tokenNormal {
		return true
	}
	b := id - firstByte
	return v.Types[id] == tokenByte && b >= 0x20 && b < 0x7f
}

// anchor is the value of the residual stream's dimension 0 for every
// position. No layer writes to that dimension (their output rows 0 are
// zero), so after the final RMSNorm it is C/rms(h) > 0 whatever the
// prompt: a constant positive input that the output layer turns into a
// bias. Large against the other dimensions, so rms(h) ≈ anchor/√dim and
// the bias is ≈ ±bias·√dim.
const (
	anchor = 8
	bias   = 1
)

// TinyLlama builds the metadata and F32 tensors of a llama model with
// uniform random weights, deterministic for c.Seed.
//
// Generation never ends early: the output row of every token that must
// not be generated (EOS among them) is −bias on the anchor dimension and
// zero elsewhere, the others +bias plus noise, so EOS's logit sits about
// 2·bias·√dim below every emittable token's whatever the context. That
// holds under greedy decoding and under Ollama's default sampling
// (temperature 1, top_k 40), so every request streams exactly max_tokens.
func TinyLlama(c LlamaConfig) ([]KV, []Tensor, error) {
	if c.Context == 0 {
		c.Context = DefaultLlama().Context
	}
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	voc := Tokens(c.Vocab)
	nv := len(voc.Text)
	d, hd := c.Dim, c.Dim/c.Heads
	kv := c.kvHeads() * hd
	rng := rand.New(rand.NewPCG(c.Seed, 0x5e77e7))
	uniform := func(n int, sd float64) []float32 {
		// uniform on [-a, a] has standard deviation a/√3
		a := sd * math.Sqrt(3)
		xs := make([]float32, n)
		for i := range xs {
			u := float64(rng.Uint64()>>11) / (1 << 53)
			xs[i] = float32((2*u - 1) * a)
		}
		return xs
	}
	// matrix is a weight applied to an input of width in, giving out
	// values; scaled so outputs keep their inputs' magnitude.
	matrix := func(name string, in, out int) Tensor {
		return Tensor{Name: name, Dims: []uint64{uint64(in), uint64(out)}, Data: uniform(in*out, 1/math.Sqrt(float64(in)))}
	}
	// norm weights skip the anchor, so the layers see the token-dependent
	// part of the residual stream.
	norm := func(name string) Tensor {
		w := make([]float32, d)
		for i := 1; i < d; i++ {
			w[i] = 1
		}
		return Tensor{Name: name, Dims: []uint64{uint64(d)}, Data: w}
	}
	noWriteToAnchor := func(t Tensor) Tensor {
		in := int(t.Dims[0])
		clear(t.Data[:in]) // row 0 produces output dimension 0
		return t
	}

	embd := Tensor{Name: "token_embd.weight", Dims: []uint64{uint64(d), uint64(nv)}, Data: uniform(d*nv, 0.02)}
	for t := 0; t < nv; t++ {
		embd.Data[t*d] = anchor
	}
	tensors := []Tensor{embd}
	for l := 0; l < c.Layers; l++ {
		p := fmt.Sprintf("blk.%d.", l)
		tensors = append(tensors,
			norm(p+"attn_norm.weight"),
			matrix(p+"attn_q.weight", d, d),
			matrix(p+"attn_k.weight", d, kv),
			matrix(p+"attn_v.weight", d, kv),
			noWriteToAnchor(matrix(p+"attn_output.weight", d, d)),
			norm(p+"ffn_norm.weight"),
			matrix(p+"ffn_gate.weight", d, c.FFN),
			matrix(p+"ffn_up.weight", d, c.FFN),
			noWriteToAnchor(matrix(p+"ffn_down.weight", c.FFN, d)),
		)
	}
	outNorm := Tensor{Name: "output_norm.weight", Dims: []uint64{uint64(d)}, Data: make([]float32, d)}
	for i := range outNorm.Data {
		outNorm.Data[i] = 1
	}
	out := Tensor{Name: "output.weight", Dims: []uint64{uint64(d), uint64(nv)}, Data: uniform(d*nv, 0.5)}
	for t := 0; t < nv; t++ {
		row := out.Data[t*d : (t+1)*d]
		if voc.emittable(t) {
			row[0] = bias
		} else {
			clear(row)
			row[0] = -bias
		}
	}
	tensors = append(tensors, outNorm, out)

	kvs := []KV{
		{"general.architecture", "llama"},
		{"general.name", "servetune-tiny-llama"},
		{"general.file_type", uint32(0)}, // all F32
		{"general.parameter_count", uint64(c.Parameters())},
		{"llama.context_length", uint32(c.Context)},
		{"llama.embedding_length", uint32(d)},
		{"llama.block_count", uint32(c.Layers)},
		{"llama.feed_forward_length", uint32(c.FFN)},
		{"llama.attention.head_count", uint32(c.Heads)},
		{"llama.attention.head_count_kv", uint32(c.kvHeads())},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.dimension_count", uint32(hd)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.vocab_size", uint32(nv)},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", voc.Text},
		{"tokenizer.ggml.scores", voc.Scores},
		{"tokenizer.ggml.token_type", voc.Types},
		{"tokenizer.ggml.unknown_token_id", uint32(UnkID)},
		{"tokenizer.ggml.bos_token_id", uint32(BOSID)},
		{"tokenizer.ggml.eos_token_id", uint32(EOSID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
	return kvs, tensors, nil
}

// WriteTinyLlama writes TinyLlama(c) as a GGUF v3 file.
func WriteTinyLlama(w io.Writer, c LlamaConfig) error {
	kvs, tensors, err := TinyLlama(c)
	if err != nil {
		return err
	}
	return Write(w, kvs, tensors)
}
