package sim

import (
	"bytes"
	"math"
	"os"
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
	cases := []struct {
		file          string
		total, active float64
		attention     string
		experts, topK int
		dtype         string
		mtp           bool
	}{
		{"testdata/hf/deepseek-v3.json", 671, 37, "MLA", 256, 8, "fp8", true},
		{"testdata/hf/qwen3-30b-a3b.json", 30.5, 3.3, "GQA", 128, 8, "bf16", false},
	}
	for _, c := range cases {
		m := cardFromFile(t, "x", c.file)
		if !near(m.TotalParamsB, c.total, 0.03) || !near(m.ActiveParamsB, c.active, 0.05) {
			t.Errorf("%s: params %.1fB total, %.2fB active; published %.1f / %.1f", c.file, m.TotalParamsB, m.ActiveParamsB, c.total, c.active)
		}
		if m.Attention != c.attention || m.Experts != c.experts || m.TopK != c.topK || m.WeightDtype != c.dtype || m.MTP != c.mtp {
			t.Errorf("%s: card %+v", c.file, m)
		}
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
	for _, p := range []string{"testdata/hf/qwen3-8b.json", "testdata/hf/deepseek-v3.json", "testdata/hf/qwen3-30b-a3b.json"} {
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
