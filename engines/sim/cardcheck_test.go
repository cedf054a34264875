package sim

import (
	"errors"
	"os"
	"strings"
	"testing"
)

const okModel = `[[model]]
name = "x/m"
total_params_b = 8
active_params_b = 8
layers = 32
hidden = 4096
attention = "GQA"
heads = 32
kv_heads = 8
head_dim = 128
max_context = 32768
`

const okGPU = `[[gpu]]
name = "G"
mem_gib = 80
hbm_tbs = 3.35
bf16_tflops = 989
nvlink_gbs = 900
`

// TestCardFileRefusals: every field's sign, finiteness, enumeration and
// the same card twice are refused at file:line:key, naming the key at
// fault (a negative nvlink_gbs used to be reported as pcie_gbs).
func TestCardFileRefusals(t *testing.T) {
	cases := []struct {
		name, src, key, want string
		line                 int
	}{
		{"negative heads", strings.Replace(okModel, "heads = 32", "heads = -32", 1), "model[0].heads", "negative", 8},
		{"unknown attention", strings.Replace(okModel, `"GQA"`, `"XYZ"`, 1), "model[0].attention", "MHA, GQA or MLA", 7},
		{"attention near a valid one", strings.Replace(okModel, `"GQA"`, `"GQE"`, 1), "model[0].attention", `did you mean "GQA"`, 7},
		{"negative max_context", strings.Replace(okModel, "max_context = 32768", "max_context = -1", 1), "model[0].max_context", "negative", 11},
		{"infinite parameters", strings.Replace(okModel, "total_params_b = 8", "total_params_b = inf", 1), "model[0].total_params_b", "finite", 3},
		{"NaN parameters", strings.Replace(okModel, "active_params_b = 8", "active_params_b = nan", 1), "model[0].active_params_b", "finite", 4},
		{"a huge layer count", strings.Replace(okModel, "layers = 32", "layers = 100000000000", 1), "model[0].layers", "more than", 5},
		{"a negative vocab", okModel + "vocab = -1\n", "model[0].vocab", "negative", 12},
		{"an unknown dtype", okModel + "weight_dtype = \"bf61\"\n", "model[0].weight_dtype", "did you mean", 12},
		{"an empty alias", strings.Replace(okGPU, `name = "G"`, "name = \"G\"\naliases = [\"\"]", 1), "gpu[0].aliases", "empty alias", 3},
		{"heads written as 0", strings.Replace(okModel, "heads = 32\n", "heads = 0\n", 1), "model[0].heads", "reads as unknown", 8},
		{"max_context written as 0", strings.Replace(okModel, "max_context = 32768", "max_context = 0", 1), "model[0].max_context", "reads as unknown", 11},
		{"kv_heads above heads", strings.Replace(okModel, "kv_heads = 8", "kv_heads = 64", 1), "model[0].kv_heads", "more than heads", 9},
		{"negative nvlink", strings.Replace(okGPU, "nvlink_gbs = 900", "nvlink_gbs = -900", 1), "gpu[0].nvlink_gbs", "negative", 6},
		{"negative fp8", okGPU + "fp8_tflops = -1\n", "gpu[0].fp8_tflops", "negative", 7},
		{"infinite memory", strings.Replace(okGPU, "mem_gib = 80", "mem_gib = inf", 1), "gpu[0].mem_gib", "finite", 3},
		{"the same GPU twice", okGPU + okGPU, "gpu[1].name", "at line 1 (gpu[0])", 7},
		{"an alias naming another GPU", okGPU + strings.Replace(okGPU, `name = "G"`, "name = \"H\"\naliases = [\"g\"]", 1), "gpu[1].name", "defined twice", 7},
		{"the same model twice", okModel + okModel, "model[1].name", "defined twice", 12},
		{"a draft without parameters", "[[draft]]\nname = \"d\"\nacceptance = 0.5\n", "draft[0].params_b", "required", 1},
		{"a draft accepting more than every token", "[[draft]]\nname = \"d\"\nparams_b = 1\nacceptance = 1.5\n", "draft[0].acceptance", "[0, 1]", 4},
	}
	for _, c := range cases {
		err := (&Cards{}).AddFile("c.toml", []byte(c.src))
		var ce *CardFileError
		if !errors.As(err, &ce) {
			t.Errorf("%s: AddFile = %v, want a CardFileError", c.name, err)
			continue
		}
		if ce.Key != c.key || ce.Line != c.line || !strings.Contains(ce.Msg, c.want) {
			t.Errorf("%s: %v, want line %d key %s saying %q", c.name, err, c.line, c.key, c.want)
		}
	}
	if err := (&Cards{}).AddFile("c.toml", []byte(okModel+okGPU)); err != nil {
		t.Errorf("valid cards refused: %v", err)
	}
}

// TestCardFileSizeLimit: a cards path that never ends (/dev/zero) or is
// too large fails at once naming the file, without reading it all.
func TestCardFileSizeLimit(t *testing.T) {
	big := t.TempDir() + "/big.toml"
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxCardFileSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	paths := []string{big, t.TempDir()}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths = append(paths, "/dev/zero")
	}
	for _, p := range paths {
		_, err := LoadCards(p)
		var ce *CardFileError
		if !errors.As(err, &ce) || ce.File != p {
			t.Errorf("LoadCards(%s) = %v, want a CardFileError naming it", p, err)
		}
	}
}

// A cards file a user names that holds no card (empty, /dev/null, only
// comments) loaded as the built-in cards: it is refused naming the file
// (issue 48, fifth pass). Cards stored with a study still read as stored.
func TestCardFileWithoutACardIsRefused(t *testing.T) {
	dir := t.TempDir()
	paths := []string{dir + "/empty.toml", dir + "/comments.toml"}
	if err := os.WriteFile(paths[0], nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(paths[1], []byte("# nothing yet\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		paths = append(paths, "/dev/null")
	}
	for _, p := range paths {
		_, err := LoadCards(p)
		var ce *CardFileError
		if !errors.As(err, &ce) || ce.File != p || !strings.Contains(ce.Msg, "holds no card") {
			t.Errorf("LoadCards(%s) = %v, want it refused: holds no card", p, err)
		}
		if err := DefaultCards().AddPath(p); err == nil {
			t.Errorf("AddPath(%s) accepted a file without a card", p)
		}
	}
	if err := DefaultCards().AddFile("stored cards", nil); err != nil {
		t.Errorf("AddFile of an empty stored text: %v", err)
	}
}
