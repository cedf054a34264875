package sim

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DefaultCardName names a card whose config has no _name_or_path: a
// model directory's config.json after the directory, any other file
// after itself (llama4.json → llama4, not the folder it was saved in).
func DefaultCardName(path string) string {
	if base := filepath.Base(path); base != "config.json" {
		return strings.TrimSuffix(base, filepath.Ext(base))
	}
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // ./config.json: the directory's own name, not "."
	}
	return filepath.Base(dir)
}

// longContext is where a config's context stops being what servers run
// with: Llama-4 Scout declares 10M tokens, no KV cache holds that.
const longContext = 1 << 20

// defaultLongContext is the context a card plans for when the config
// declares more than longContext and no --max-model-len is given: the
// 32K a deployment of such a model typically runs with (vLLM's own
// default, the config's maximum, would not start: its KV cache cannot
// hold one 10M-token request).
const defaultLongContext = 32768

// PlanContext applies `servetune card --max-model-len` as the card's
// max_model_len (the planned context; max_context stays the config's,
// the limit of a max_model_len knob); without it a context past
// longContext is planned at defaultLongContext, and note says so. Its
// errors are bad input.
func PlanContext(m *ModelCard, maxLen int) (note string, err error) {
	switch {
	case maxLen < 0:
		return "", fmt.Errorf("--max-model-len must be positive, got %d", maxLen)
	case maxLen > m.MaxContext && m.MaxContext > 0:
		return "", fmt.Errorf("--max-model-len %d is more than the config's max_position_embeddings (%d); servers refuse it", maxLen, m.MaxContext)
	case maxLen > 0:
		m.MaxModelLen = maxLen
	case m.MaxContext > longContext:
		m.MaxModelLen = defaultLongContext
		note = fmt.Sprintf("%s declares a %d-token context, more than any KV cache holds; the card plans KV for %d tokens (max_model_len). Pass --max-model-len (or set the max_model_len knob) to what the server runs with.", m.Name, m.MaxContext, defaultLongContext)
	}
	return note, nil
}
