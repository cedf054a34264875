package bench

import (
	"strings"
	"testing"
)

func TestPromptWordsIsACopy(t *testing.T) {
	w := PromptWords()
	w[0] = "changed"
	if got := PromptWords()[0]; got != "the" {
		t.Errorf("PromptWords()[0] = %q after a caller changed its copy", got)
	}
}

// Text prompts are the prompt words, space-separated, one word per token.
func TestPromptTextUsesPromptWords(t *testing.T) {
	p := Profile{InputLen: 70, OutputLen: 1, NumPrompts: 1, TextPrompts: true}
	plan, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	r := &plan.Requests[0]
	words := strings.Split(plan.promptText(r), " ")
	if len(words) != r.InputLen {
		t.Fatalf("%d words for %d tokens", len(words), r.InputLen)
	}
	known := map[string]bool{}
	for _, w := range PromptWords() {
		known[w] = true
	}
	for _, w := range words {
		if !known[w] {
			t.Fatalf("word %q is not a prompt word", w)
		}
	}
}
