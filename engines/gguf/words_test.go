package gguf

import (
	"testing"

	"github.com/servetune/servetune/bench"
)

// The tiny test model and the load generator agree: every word a bench
// text prompt is made of is one token of the model's tokenizer, so a
// prompt of n words is n tokens, as the profile's input_len intends.
func TestTinyModelTokenizesPromptWordsAsOneToken(t *testing.T) {
	voc := Tokens(DefaultLlama().Vocab)
	id := map[string]int{}
	for i, s := range voc.Text {
		id[s] = i
	}
	words := bench.PromptWords()
	if len(words) != 64 {
		t.Fatalf("%d prompt words, want 64", len(words))
	}
	for _, w := range words {
		i, ok := id["▁"+w]
		if !ok {
			t.Errorf("%q is not one token of the tiny model", w)
			continue
		}
		if !voc.emittable(i) {
			t.Errorf("%q (token %d) is not a normal piece", w, i)
		}
	}
}
