package engines

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFieldIs(t *testing.T) {
	for _, c := range []struct {
		body, field, want string
		ok                bool
	}{
		{`{"status":"ready"}`, "status", "ready", true},
		{`{"status":"loading"}`, "status", "ready", false},
		{`{"a":{"b":true}}`, "a.b", "true", true},
		{`{"n":2}`, "n", "2", true},
		{`not json`, "status", "ready", false},
		{`{"a":1}`, "a.b", "1", false},
	} {
		if got := fieldIs([]byte(c.body), c.field, c.want); got != c.ok {
			t.Errorf("fieldIs(%s, %s, %s) = %v", c.body, c.field, c.want, got)
		}
	}
}

// FuzzFieldIs: a document whose field holds the string reads as it.
func FuzzFieldIs(f *testing.F) {
	f.Add("status", "ready")
	f.Add("a.b", "")
	f.Fuzz(func(t *testing.T, field, value string) {
		if field == "" || strings.Contains(field, ".") || !utf8.ValidString(field) || !utf8.ValidString(value) {
			return // JSON would rewrite the name or value
		}
		body, _ := json.Marshal(map[string]string{field: value})
		if !fieldIs(body, field, value) {
			t.Fatalf("fieldIs(%s, %q, %q) = false", body, field, value)
		}
	})
}
