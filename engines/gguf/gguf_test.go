package gguf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/servetune/servetune/bench"
)

func TestRoundTripEveryValueType(t *testing.T) {
	kvs := []KV{
		{"u8", uint8(200)}, {"i8", int8(-5)}, {"u16", uint16(60000)}, {"i16", int16(-300)},
		{"u32", uint32(1 << 31)}, {"i32", int32(-1 << 30)}, {"u64", uint64(1 << 40)}, {"i64", int64(-1 << 40)},
		{"f32", float32(1.5)}, {"f64", math.Pi}, {"yes", true}, {"no", false}, {"s", "héllo"},
		{"a.str", []string{"<s>", "", "▁the"}}, {"a.f32", []float32{-1, 0.25}}, {"a.i32", []int32{1, -2, 3}},
		{"a.u8", []uint8{1, 2}}, {"a.bool", []bool{true, false}}, {"a.u64", []uint64{}},
		{"general.alignment", uint32(64)},
	}
	tensors := []Tensor{
		{Name: "a", Dims: []uint64{3}, Data: []float32{1, 2, 3}},
		{Name: "b.weight", Dims: []uint64{2, 5}, Data: make([]float32, 10)},
	}
	var buf bytes.Buffer
	if err := Write(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	f, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != 3 || !reflect.DeepEqual(f.KV, kvs) {
		t.Errorf("read back version %d, KV\n%#v\nwant\n%#v", f.Version, f.KV, kvs)
	}
	if f.DataOffset%64 != 0 || len(f.Tensors) != 2 {
		t.Fatalf("data offset %d, %d tensors", f.DataOffset, len(f.Tensors))
	}
	// Offsets are aligned, relative to the data section, and the data is
	// where they say: b follows a's 12 bytes padded to 64.
	if f.Tensors[0].Offset != 0 || f.Tensors[1].Offset != 64 || !reflect.DeepEqual(f.Tensors[1].Dims, []uint64{2, 5}) || f.Tensors[1].Type != GGMLTypeF32 {
		t.Errorf("tensor infos %+v", f.Tensors)
	}
	data := buf.Bytes()[f.DataOffset:]
	if got := math.Float32frombits(binary.LittleEndian.Uint32(data[8:])); got != 3 {
		t.Errorf("a[2] = %v; want 3", got)
	}
	if uint64(len(data)) != 64+pad(40, 64) {
		t.Errorf("data section is %d bytes; want %d (each tensor padded)", len(data), 64+pad(40, 64))
	}
}

func TestWriteRejects(t *testing.T) {
	for _, c := range []struct {
		kvs     []KV
		tensors []Tensor
		want    string
	}{
		{[]KV{{"x", 3}}, nil, "not a GGUF value type: int"},
		{[]KV{{"x", []any{1}}}, nil, "not a GGUF value type"},
		{[]KV{{"general.alignment", uint32(12)}}, nil, "multiple of 8"},
		{nil, []Tensor{{Name: "t", Dims: []uint64{2, 2}, Data: make([]float32, 3)}}, "3 values for dims [2 2]"},
	} {
		var buf bytes.Buffer
		err := Write(&buf, c.kvs, c.tensors)
		if err == nil || !strings.Contains(err.Error(), c.want) || buf.Len() != 0 {
			t.Errorf("Write = %v (wrote %d bytes); want an error containing %q and nothing written", err, buf.Len(), c.want)
		}
	}
}

func TestReadRejects(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, []KV{{"k", "v"}}, []Tensor{{Name: "t", Dims: []uint64{1}, Data: []float32{1}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(strings.NewReader("PK\x03\x04")); !errors.Is(err, ErrNotGGUF) {
		t.Errorf("zip magic: %v", err)
	}
	v4 := bytes.Clone(good.Bytes())
	v4[4] = 4
	if _, err := Read(bytes.NewReader(v4)); err == nil || !strings.Contains(err.Error(), "version 4") {
		t.Errorf("version 4: %v", err)
	}
	for n := 5; n < 79; n += 3 { // the header is 79 bytes: 24 fixed, 22 for the key, 33 for the tensor
		if _, err := Read(bytes.NewReader(good.Bytes()[:n])); err == nil {
			t.Fatalf("header truncated at %d bytes read without error", n)
		}
	}
	huge := bytes.Clone(good.Bytes())
	binary.LittleEndian.PutUint64(huge[16:], 1<<40) // metadata count
	if _, err := Read(bytes.NewReader(huge)); err == nil || !strings.Contains(err.Error(), "implausible") {
		t.Errorf("2^40 keys: %v", err)
	}
}

func writeLlama(t *testing.T, c LlamaConfig) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteTinyLlama(&buf, c); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestTinyLlamaDeterministic(t *testing.T) {
	c := LlamaConfig{Dim: 32, Layers: 2, FFN: 48, Heads: 4, KVHeads: 2, Context: 256, Seed: 7}
	a, b := writeLlama(t, c), writeLlama(t, c)
	if !bytes.Equal(a, b) {
		t.Fatal("the same config and seed wrote different bytes")
	}
	c.Seed = 8
	if bytes.Equal(a, writeLlama(t, c)) {
		t.Fatal("a different seed wrote the same bytes")
	}
	if sha := sha256.Sum256(a); sha == sha256.Sum256(nil) {
		t.Fatal("empty file")
	}
}

func TestTinyLlamaHeader(t *testing.T) {
	c := LlamaConfig{Dim: 64, Layers: 3, FFN: 96, Heads: 4, KVHeads: 2, Context: 512, Seed: 1}
	raw := writeLlama(t, c)
	f, err := Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"general.architecture": "llama", "llama.embedding_length": uint32(64), "llama.block_count": uint32(3),
		"llama.feed_forward_length": uint32(96), "llama.attention.head_count": uint32(4),
		"llama.attention.head_count_kv": uint32(2), "llama.rope.dimension_count": uint32(16),
		"llama.context_length": uint32(512), "tokenizer.ggml.model": "llama",
		"tokenizer.ggml.eos_token_id": uint32(EOSID), "general.parameter_count": uint64(c.Parameters()),
	}
	for k, v := range want {
		if got, ok := f.Get(k); !ok || got != v {
			t.Errorf("%s = %#v; want %#v", k, got, v)
		}
	}
	toks, _ := f.Get("tokenizer.ggml.tokens")
	types, _ := f.Get("tokenizer.ggml.token_type")
	nv := len(toks.([]string))
	if len(types.([]int32)) != nv || toks.([]string)[EOSID] != "</s>" || toks.([]string)[firstByte+0x41] != "<0x41>" {
		t.Errorf("tokenizer: %d tokens, %d types, eos %q", nv, len(types.([]int32)), toks.([]string)[EOSID])
	}
	// Shapes are ggml's (input first) and the parameters add up.
	shapes := map[string][]uint64{}
	total := uint64(0)
	for _, ti := range f.Tensors {
		shapes[ti.Name] = ti.Dims
		n := uint64(1)
		for _, d := range ti.Dims {
			n *= d
		}
		total += n
	}
	for name, dims := range map[string][]uint64{
		"token_embd.weight": {64, uint64(nv)}, "output.weight": {64, uint64(nv)},
		"blk.2.attn_k.weight": {64, 32}, "blk.0.ffn_down.weight": {96, 64}, "blk.1.ffn_up.weight": {64, 96},
	} {
		if !reflect.DeepEqual(shapes[name], dims) {
			t.Errorf("%s dims %v; want %v", name, shapes[name], dims)
		}
	}
	if len(f.Tensors) != 3+9*3 || total != uint64(c.Parameters()) {
		t.Errorf("%d tensors, %d parameters; want %d, %d", len(f.Tensors), total, 3+9*3, c.Parameters())
	}
	if uint64(len(raw)) != f.DataOffset+4*total+paddingOf(f) {
		t.Errorf("file is %d bytes; header says %d", len(raw), f.DataOffset+4*total)
	}
}

func paddingOf(f *File) uint64 {
	p := uint64(0)
	for _, ti := range f.Tensors {
		n := uint64(4)
		for _, d := range ti.Dims {
			n *= d
		}
		p += pad(n, DefaultAlignment) - n
	}
	return p
}

// TestEOSUnreachable checks the construction that keeps generation going:
// for any residual stream whose anchor dimension is untouched, the final
// logits put every forbidden token (EOS first) far below every emittable
// one. It runs the output layer on adversarial hidden states.
func TestEOSUnreachable(t *testing.T) {
	c := LlamaConfig{Dim: 64, Layers: 2, FFN: 96, Heads: 4, Context: 128, Seed: 3}
	_, tensors, err := TinyLlama(c)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Tensor{}
	for _, tt := range tensors {
		byName[tt.Name] = tt
	}
	d := c.Dim
	for _, name := range []string{"blk.0.attn_output.weight", "blk.1.ffn_down.weight"} {
		w := byName[name]
		for _, v := range w.Data[:w.Dims[0]] {
			if v != 0 {
				t.Fatalf("%s writes to the anchor dimension", name)
			}
		}
	}
	embd, out := byName["token_embd.weight"], byName["output.weight"]
	voc := Tokens(c.Vocab)
	for tok := range voc.Text {
		if embd.Data[tok*d] != anchor {
			t.Fatalf("token %d embedding has anchor %v", tok, embd.Data[tok*d])
		}
	}
	// Hidden states: the anchor plus residual noise up to 4× the
	// embeddings' scale, in the direction most favourable to EOS.
	eosRow := out.Data[EOSID*d : (EOSID+1)*d]
	for trial := 0; trial < 3; trial++ {
		h := make([]float64, d)
		h[0] = anchor
		for i := 1; i < d; i++ {
			h[i] = 0.08 * float64(trial+1) * math.Copysign(1, float64(eosRow[i])+0.5-float64(i%2))
		}
		rms := 0.0
		for _, x := range h {
			rms += x * x
		}
		rms = math.Sqrt(rms / float64(d))
		logit := func(tok int) float64 {
			s := 0.0
			for i := 0; i < d; i++ {
				s += h[i] / rms * float64(out.Data[tok*d+i])
			}
			return s
		}
		eos, minAllowed, allowed := logit(EOSID), math.Inf(1), 0
		for tok := range voc.Text {
			if voc.emittable(tok) {
				minAllowed = min(minAllowed, logit(tok))
				allowed++
			} else if l := logit(tok); l > -1 {
				t.Errorf("forbidden token %d (%s) has logit %.2f", tok, voc.Text[tok], l)
			}
		}
		if allowed < 40 || eos > minAllowed-5 {
			t.Errorf("EOS logit %.2f vs lowest emittable %.2f (%d emittable): EOS reachable", eos, minAllowed, allowed)
		}
	}
}

func TestTokensCoverPromptWords(t *testing.T) {
	v := Tokens(0)
	have := map[string]bool{}
	for _, s := range v.Text {
		have[s] = true
	}
	// Every prefix of every word is a piece, so SentencePiece can merge a
	// word into one token.
	for _, w := range bench.PromptWords() {
		for i := 1; i <= len(w); i++ {
			if !have["▁"+w[:i]] {
				t.Fatalf("piece ▁%s missing: %q would not merge into one token", w[:i], w)
			}
		}
	}
	if small := Tokens(firstPiece + 1); len(small.Text) != firstPiece+1 {
		t.Errorf("Tokens(%d) has %d tokens", firstPiece+1, len(small.Text))
	}
	if big := Tokens(1000); len(big.Text) != 1000 {
		t.Errorf("Tokens(1000) has %d tokens", len(big.Text))
	}
}

func TestLlamaConfigValidate(t *testing.T) {
	if err := DefaultLlama().Validate(); err != nil {
		t.Fatal(err)
	}
	bad := LlamaConfig{Dim: 30, Layers: 0, FFN: 8, Heads: 4, Vocab: 10, Context: 8}
	err := bad.Validate()
	for _, want := range []string{"divisible by heads", "layers must be", "vocab must be", "context must be"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v; want it to mention %q", err, want)
		}
	}
}

// BenchmarkWriteTinyLlama: the default test model (3.4M parameters,
// 13.7 MB) built and written, as `servetune testmodel` does.
func BenchmarkWriteTinyLlama(b *testing.B) {
	c := DefaultLlama()
	b.SetBytes(int64(4 * c.Parameters()))
	for b.Loop() {
		if err := WriteTinyLlama(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
}
