package lab

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --cards and --reality-cards: none given is nil (the built-in cards);
// a file that does not load is a UsageError naming its flag and line.
func TestLoadCards(t *testing.T) {
	if c, r, err := LoadCards("", ""); c != nil || r != nil || err != nil {
		t.Errorf("no flags: %v %v %v", c, r, err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("[[model]]\nname = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cards, reality, want string }{
		{bad, "", "--cards: " + bad + ":2"},
		{"", bad, "--reality-cards: " + bad + ":2"},
		{"", filepath.Join(dir, "missing.toml"), "--reality-cards: "},
	} {
		_, _, err := LoadCards(c.cards, c.reality)
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v", c, err)
		}
	}
}

func TestWriteJSON(t *testing.T) {
	if err := WriteJSON("", nil); err != nil {
		t.Error(err)
	}
	path := filepath.Join(t.TempDir(), "lab.json")
	if err := WriteJSON(path, []*Result{}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	var back []map[string]any
	if err != nil || json.Unmarshal(b, &back) != nil || back == nil || len(back) != 0 {
		t.Errorf("written %s: %v", b, err)
	}
}
