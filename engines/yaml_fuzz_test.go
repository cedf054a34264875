package engines

import (
	"math"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// sameYAML compares what went into writeYAML with what a real YAML parser
// read back: integers may come back as int, floats must stay floats.
func sameYAML(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if gv, ok := g[k]; !ok || !sameYAML(v, gv) {
				return false
			}
		}
		return true
	case int64:
		g, ok := got.(int)
		return ok && int64(g) == w
	case float64:
		g, ok := got.(float64)
		return ok && (g == w || math.IsNaN(g) && math.IsNaN(w))
	default:
		return want == got
	}
}

// FuzzWriteYAML: option maps of any keys and scalars survive writeYAML
// and parsing by gopkg.in/yaml.v3, with their types.
func FuzzWriteYAML(f *testing.F) {
	f.Add("dtype", "fp8", int64(256), 0.85, true, "decoding_type", "Eagle3")
	f.Add("a: b", "x #y", int64(-1), 1e21, false, "yes", "null")
	f.Add("", "0x1F", int64(0), math.Inf(-1), true, "- item", "'quoted'")
	f.Add("key", "tab\there\nnewline", int64(math.MaxInt64), 100.0, false, "on", "1_000")
	f.Add("é", " leading space", int64(math.MinInt64), math.NaN(), true, "~", ".inf")
	f.Fuzz(func(t *testing.T, k1, s1 string, n int64, x float64, b bool, k2, s2 string) {
		for _, s := range []string{k1, s1, k2, s2} {
			if !utf8.ValidString(s) {
				return // options come from TOML, which is UTF-8
			}
		}
		m := map[string]any{
			k1: s1, "n": n, "x": x, "b": b, "z": nil,
			"nested": map[string]any{k2: s2, "empty": map[string]any{}, "deeper": map[string]any{k1: x, k2: n}},
		}
		text := writeYAML(m)
		var got map[string]any
		if err := yaml.Unmarshal([]byte(text), &got); err != nil {
			t.Fatalf("YAML parser rejects writeYAML output: %v\n%s", err, text)
		}
		if !sameYAML(m, got) {
			t.Fatalf("writeYAML(%#v) read back as %#v\n%s", m, got, text)
		}
	})
}
