package sim

import (
	"strings"
	"testing"
)

// A cards file's card answering to a built-in card's alias replaces that
// card for every one of its names, and the replacement is reported.
func TestCardsFileOverridesABuiltInCardByAlias(t *testing.T) {
	cs := DefaultCards()
	src := `[[model]]
name = "my-llama-70b"
aliases = ["meta-llama/Llama-3.1-70B-Instruct"]
total_params_b = 70.6
active_params_b = 70.6
layers = 80
hidden = 8192
kv_heads = 8
head_dim = 128
tokens_per_chunk = 1.1
`
	if err := cs.AddFile("cards.toml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	m, err := cs.Model("meta-llama/Llama-3.1-70B-Instruct")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "my-llama-70b" {
		t.Errorf("the alias finds %q, want the cards file's card", m.Name)
	}
	if _, err := cs.Model("Llama-3.1-70B"); err == nil {
		t.Error("the replaced built-in card still answers to its own name")
	}
	if len(cs.Replaced) != 1 || !strings.Contains(cs.Replaced[0], `"Llama-3.1-70B"`) || !strings.Contains(cs.Replaced[0], "meta-llama/Llama-3.1-70B-Instruct") {
		t.Errorf("notices %q, want one naming the replaced card and the shared name", cs.Replaced)
	}
	// Same name: replaced in place, silently, as before.
	cs2 := DefaultCards()
	n := len(cs2.GPUs)
	if err := cs2.AddFile("g.toml", []byte("[[gpu]]\nname = \"h100\"\nmem_gib = 80\nhbm_tbs = 3\nbf16_tflops = 900\n")); err != nil {
		t.Fatal(err)
	}
	if g, _ := cs2.GPU("H100-SXM"); g.Name == "h100" || len(cs2.GPUs) != n || len(cs2.Replaced) != 0 {
		t.Errorf("same-name GPU card: %d cards (want %d), alias finds %q, notices %q", len(cs2.GPUs), n, g.Name, cs2.Replaced)
	}
}

// A card that takes one alias of another card leaves that card its other
// names.
func TestCardsFileTakesOnlyTheSharedName(t *testing.T) {
	cs := DefaultCards()
	if err := cs.AddFile("g.toml", []byte("[[gpu]]\nname = \"A100-80GB\"\naliases = [\"H100-SXM\"]\nmem_gib = 80\nhbm_tbs = 2\nbf16_tflops = 312\n")); err != nil {
		t.Fatal(err)
	}
	if g, _ := cs.GPU("H100-SXM"); g.Name != "A100-80GB" {
		t.Errorf("H100-SXM finds %q, want the added card", g.Name)
	}
	if g, _ := cs.GPU("H100"); g.Name != "H100" {
		t.Errorf("H100 finds %q, want the built-in H100 card", g.Name)
	}
	if len(cs.Replaced) != 1 || !strings.Contains(cs.Replaced[0], "takes the name") {
		t.Errorf("notices %q", cs.Replaced)
	}
}
