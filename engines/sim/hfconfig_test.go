package sim

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func cardFromFile(t *testing.T, name, file string) ModelCard {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := CardFromHFConfig(name, f)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return m
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*want }

// The derived card must agree with the hand-written Qwen3-8B card and
// with published parameter counts of two MoE families.
func TestCardFromHFConfig(t *testing.T) {
	q := cardFromFile(t, "qwen-from-hf", "testdata/hf/qwen3-8b.json")
	builtin, err := DefaultCards().Model("Qwen3-8B")
	if err != nil {
		t.Fatal(err)
	}
	if q.Layers != builtin.Layers || q.Hidden != builtin.Hidden || q.Heads != builtin.Heads || q.KVHeads != builtin.KVHeads ||
		q.HeadDim != builtin.HeadDim || q.Attention != builtin.Attention || q.MaxContext != builtin.MaxContext || q.Vocab != builtin.Vocab {
		t.Errorf("shape %+v differs from the built-in card %+v", q, builtin)
	}
	if !near(q.TotalParamsB, builtin.TotalParamsB, 0.02) || !near(q.AttnParamsB, builtin.AttnParamsB, 0.05) {
		t.Errorf("params total %.3f attn %.3f; built-in %.1f / %.1f", q.TotalParamsB, q.AttnParamsB, builtin.TotalParamsB, builtin.AttnParamsB)
	}
	for _, c := range publishedCards {
		m := cardFromFile(t, "x", c.file)
		active := m.ActiveParamsB
		if c.noLookup {
			active -= float64(m.Vocab*m.Hidden) / 1e9
		}
		if !near(m.TotalParamsB, c.total, c.tol) || !near(active, c.active, c.tol) {
			t.Errorf("%s: params %.2fB total, %.2fB active; published %.1f / %.1f", c.file, m.TotalParamsB, m.ActiveParamsB, c.total, c.active)
		}
		if m.Attention != c.attention || m.Experts != c.experts || m.TopK != c.topK || m.WeightDtype != c.dtype || m.MTP != c.mtp {
			t.Errorf("%s: card %+v", c.file, m)
		}
		if m.KVLayers != c.kvLayers || m.WindowLayers != c.windowLayers {
			t.Errorf("%s: kv_layers %d window_layers %d, want %d / %d", c.file, m.KVLayers, m.WindowLayers, c.kvLayers, c.windowLayers)
		}
	}
}

// publishedCards are real config.json files (testdata/hf/SOURCES.md) and
// their models' published parameter counts; tol is the relative error
// allowed (the counts ignore norms and biases; Llama-4's 109B includes
// its vision tower, which the text card leaves out).
var publishedCards = []struct {
	file                   string
	total, active, tol     float64
	attention              string
	experts, topK          int
	dtype                  string
	mtp                    bool
	kvLayers, windowLayers int
	// noLookup: DeepSeek counts active parameters without the embedding
	// lookup (which costs no FLOPs); the card counts it, as Meta does.
	noLookup bool
}{
	{"testdata/hf/llama-3.1-8b-instruct.json", 8.03, 8.03, 0.02, "GQA", 0, 0, "bf16", false, 0, 0, false},
	{"testdata/hf/llama-3.1-70b-instruct.json", 70.6, 70.6, 0.02, "GQA", 0, 0, "bf16", false, 0, 0, false},
	{"testdata/hf/qwen2.5-7b-instruct.json", 7.61, 7.61, 0.02, "GQA", 0, 0, "bf16", false, 0, 0, false},
	{"testdata/hf/mistral-nemo-instruct-2407.json", 12.2, 12.2, 0.02, "GQA", 0, 0, "bf16", false, 0, 0, false},
	{"testdata/hf/llama-4-scout-17b-16e-instruct-fp8-dynamic.json", 109, 17, 0.03, "GQA", 16, 1, "fp8", false, 12, 36, false},
	{"testdata/hf/mixtral-8x7b-v0.1.json", 46.7, 12.9, 0.02, "GQA", 8, 2, "bf16", false, 0, 0, false},
	{"testdata/hf/deepseek-v2-lite.json", 15.7, 2.4, 0.04, "MLA", 64, 6, "bf16", false, 0, 0, true},
	{"testdata/hf/deepseek-v3.json", 671, 37, 0.03, "MLA", 256, 8, "fp8", true, 0, 0, true},
	{"testdata/hf/qwen3-30b-a3b.json", 30.5, 3.3, 0.03, "GQA", 128, 8, "bf16", false, 0, 0, false},
	{"testdata/hf/qwen3-32b-awq.json", 32.8, 32.8, 0.02, "GQA", 0, 0, "int4", false, 0, 0, false},
	{"testdata/hf/qwen1.5-moe-a2.7b-chat-gptq-int4.json", 14.3, 2.7, 0.03, "MHA", 60, 4, "int4", false, 0, 0, false},
}

// Quantised checkpoints store what their files weigh: Qwen3-32B-AWQ's
// safetensors total 18.00 GiB (int4 in groups of 128 with FP16 scales,
// BF16 embeddings and LM head).
func TestQuantisedWeightBytes(t *testing.T) {
	m := cardFromFile(t, "x", "testdata/hf/qwen3-32b-awq.json")
	gibs := m.TotalParamsB * 1e9 * m.bytesPerParam(2) / (1 << 30)
	if !near(gibs, 18.00, 0.02) {
		t.Errorf("AWQ weights %.2f GiB (%.3f bits/param), checkpoint 18.00 GiB", gibs, m.WeightBits)
	}
	for _, c := range []struct {
		quant string
		dtype string
		bits  float64 // per quantised weight, scales included
	}{
		{`{"quant_method": "gptq", "bits": 8, "group_size": 128}`, "int8", 8 + 24.0/128},
		{`{"quant_method": "awq", "bits": 4, "group_size": -1}`, "int4", 4},
		{`{"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128}}}}`, "int4", 4 + 20.0/128},
		{`{"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"num_bits": 8, "type": "float", "strategy": "channel"}}}}`, "fp8", 0},
		{`{"quant_method": "modelopt", "quant_algo": "NVFP4"}`, "fp4", 4 + 8.0/16},
		{`{"quant_method": "fp8", "weight_block_size": [128, 128]}`, "fp8", 0},
		{`{"quant_method": "bitsandbytes", "load_in_8bit": true}`, "int8", 8},
		{`{"quant_method": "something-new"}`, "bf16", 0},
	} {
		var q hfQuant
		if err := json.Unmarshal([]byte(c.quant), &q); err != nil {
			t.Fatal(err)
		}
		// No embeddings: the mean is the quantised weights' own.
		dtype, bits := q.weights(1e9, 0)
		if dtype != c.dtype || math.Abs(bits-c.bits) > 1e-3 {
			t.Errorf("%s: %s %.4f bits, want %s %.4f", c.quant, dtype, bits, c.dtype, c.bits)
		}
	}
}

// Llama-4 Scout's 10M-token context must not become the KV plan by
// accident: window layers count for their 8192-token chunk only, and the
// card keeps the config's context for --max-model-len to cut.
func TestWindowLayersShrinkKV(t *testing.T) {
	m := cardFromFile(t, "x", "testdata/hf/llama-4-scout-17b-16e-instruct-fp8-dynamic.json")
	if m.MaxContext != 10485760 || m.SlidingWindow != 8192 {
		t.Fatalf("max_context %d window %d", m.MaxContext, m.SlidingWindow)
	}
	if got := m.kvLayers(8192); got != 48 {
		t.Errorf("at 8k every layer keeps the whole request: %v", got)
	}
	if got := m.kvLayers(131072); math.Abs(got-(12+36.0/16)) > 1e-9 {
		t.Errorf("at 128k: %v layers' worth", got)
	}
	dense := cardFromFile(t, "x", "testdata/hf/llama-3.1-8b-instruct.json")
	if dense.kvLayers(131072) != 32 {
		t.Errorf("dense model: %v", dense.kvLayers(131072))
	}
}

func TestCardTOMLRoundTrips(t *testing.T) {
	m := cardFromFile(t, "org/DeepSeek-V3", "testdata/hf/deepseek-v3.json")
	var buf bytes.Buffer
	if err := CardTOML(&buf, m); err != nil {
		t.Fatal(err)
	}
	c := DefaultCards()
	if err := c.Add(&buf); err != nil {
		t.Fatalf("Add(CardTOML): %v\n%s", err, buf.String())
	}
	got, err := c.Model("org/DeepSeek-V3")
	if err != nil || !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, got, m)
	}
}

func TestCardFromHFConfigErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{`:                        "config.json",
		`{"hidden_size": 8}`:       "give the card a name",
		`{"_name_or_path": "m"}`:   "missing or out of range",
		`{"hidden_size": "eight"}`: "config.json",
	} {
		if _, err := CardFromHFConfig("", strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", in, err, want)
		}
	}
}

func FuzzCardFromHFConfig(f *testing.F) {
	for _, p := range []string{"testdata/hf/qwen3-8b.json", "testdata/hf/deepseek-v3.json", "testdata/hf/qwen3-30b-a3b.json",
		"testdata/hf/llama-4-scout-17b-16e-instruct-fp8-dynamic.json", "testdata/hf/qwen1.5-moe-a2.7b-chat-gptq-int4.json", "testdata/hf/qwen3-32b-awq.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"text_config": {"hidden_size": 8, "num_hidden_layers": 1, "num_attention_heads": 2, "vocab_size": 4}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := CardFromHFConfig("fuzz", bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := m.validate(); err != nil {
			t.Fatalf("accepted a card that does not validate: %v", err)
		}
		if m.TotalParamsB < m.ActiveParamsB-1e-3 {
			t.Fatalf("active %.3f > total %.3f", m.ActiveParamsB, m.TotalParamsB)
		}
	})
}

// A cards file either loads or fails with a positioned error; never a
// panic, never a card that does not validate.
func FuzzAddFile(f *testing.F) {
	b, err := os.ReadFile("cards/models.toml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("[[model]]\nname = \"x\"\nlayerz = 1\n"))
	f.Add([]byte("[[gpu]]\nname = \"g\"\nmem_gib = \"80\"\n"))
	f.Add([]byte(okGPU + okGPU))
	f.Add([]byte(strings.Replace(okModel, "heads = 32", "heads = -32", 1)))
	f.Fuzz(func(t *testing.T, src []byte) {
		c := &Cards{}
		if err := c.AddFile("f.toml", src); err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, m := range c.Models {
			if err := m.validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

var update = flag.Bool("update", false, "rewrite testdata/hf/cards.golden.toml")

// The cards of every real config, as `servetune card` prints them; a
// change to the derivation shows up here line by line (-update rewrites).
func TestCardsGolden(t *testing.T) {
	var buf bytes.Buffer
	for _, c := range publishedCards {
		m := cardFromFile(t, strings.TrimSuffix(filepath.Base(c.file), ".json"), c.file)
		if err := CardTOML(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	const golden = "testdata/hf/cards.golden.toml"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("cards differ from %s (go test -run TestCardsGolden -update):\n%s", golden, buf.String())
	}
	if err := DefaultCards().Add(bytes.NewReader(want)); err != nil {
		t.Errorf("the golden cards do not load: %v", err)
	}
}

// Hybrid layouts the config states: Qwen3-Next's linear-attention layers
// (layer_types, or full_attention_interval) keep no per-token KV; Gemma's
// window pattern keeps one global layer in six; Qwen2 without
// use_sliding_window keeps every layer whole.
func TestHybridLayerKinds(t *testing.T) {
	base := `"_name_or_path": "m", "hidden_size": 2048, "num_hidden_layers": 48, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 1000, "intermediate_size": 4096`
	for _, c := range []struct {
		extra              string
		full, window, size int
	}{
		{`"full_attention_interval": 4`, 12, 0, 0},
		{`"layer_types": [` + strings.TrimSuffix(strings.Repeat(`"linear_attention","linear_attention","linear_attention","full_attention",`, 12), ",") + `]`, 12, 0, 0},
		{`"sliding_window": 1024, "sliding_window_pattern": 6`, 8, 40, 1024},
		{`"sliding_window": 4096`, 0, 48, 4096},
		{`"sliding_window": 4096, "model_type": "gemma2"`, 24, 24, 4096},
		{`"sliding_window": 131072, "use_sliding_window": false, "max_window_layers": 28`, 0, 0, 0},
	} {
		m, err := CardFromHFConfig("", strings.NewReader("{"+base+", "+c.extra+"}"))
		if err != nil {
			t.Fatalf("%s: %v", c.extra, err)
		}
		if m.KVLayers != c.full || m.WindowLayers != c.window || m.SlidingWindow != c.size {
			t.Errorf("%.40s: kv_layers %d window_layers %d sliding_window %d, want %d %d %d", c.extra, m.KVLayers, m.WindowLayers, m.SlidingWindow, c.full, c.window, c.size)
		}
	}
}
