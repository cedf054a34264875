package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without _name_or_path a card is named after the model directory, or
// after the file when it is not a config.json.
func TestDefaultCardName(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/models/Qwen3-8B/config.json": "Qwen3-8B",
		"/tmp/dl/llama4-scout.json":    "llama4-scout",
		"config.json":                  filepath.Base(wd),
	} {
		if got := DefaultCardName(path); got != want {
			t.Errorf("DefaultCardName(%q) = %q, want %q", path, got, want)
		}
	}
}

// --max-model-len plans the card's KV for what the server runs with,
// never past the config's context; without it a context longer than
// any KV cache holds is planned at 32K, with a note.
func TestPlanContext(t *testing.T) {
	for _, c := range []struct {
		max, given, want int
		note, err        string
	}{
		{max: 131072, given: 0, want: 0},
		{max: 131072, given: 8192, want: 8192},
		{max: 10 << 20, given: 0, want: defaultLongContext, note: "declares a 10485760-token context"},
		{max: 10 << 20, given: 131072, want: 131072},
		{max: 131072, given: 200000, err: "more than the config's max_position_embeddings (131072)"},
		{max: 131072, given: -1, err: "--max-model-len must be positive"},
	} {
		m := ModelCard{Name: "m", MaxContext: c.max}
		note, err := PlanContext(&m, c.given)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: %v", c, err)
			}
		case err != nil || m.MaxModelLen != c.want || (c.note == "") != (note == "") || !strings.Contains(note, c.note):
			t.Errorf("%+v: max_model_len %d, note %q, %v", c, m.MaxModelLen, note, err)
		}
	}
}
