package engines

import (
	"math"
	"regexp"
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

// pyYAML are PyYAML's implicit resolvers (yaml/resolver.py), YAML 1.1 as
// TensorRT-LLM reads its options file, written out here independently of
// the writer: a plain scalar must resolve to the same type under them as
// under yaml.v3's YAML 1.2.
var pyYAML = []struct {
	tag string
	re  *regexp.Regexp
}{
	{"!!bool", regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)},
	{"!!float", regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)},
	{"!!int", regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)},
	{"!!merge", regexp.MustCompile(`^(?:<<)$`)},
	{"!!null", regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)},
	{"!!timestamp", regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)},
	{"!!value", regexp.MustCompile(`^(?:=)$`)},
}

func pyYAMLTag(plain string) string {
	for _, r := range pyYAML {
		if r.re.MatchString(plain) {
			return r.tag
		}
	}
	return "!!str"
}

// checkYAML11 fails when a plain scalar of the document reads as another
// type under YAML 1.1 than under yaml.v3.
func checkYAML11(t *testing.T, n *yaml.Node, text string) {
	if n.Kind == yaml.ScalarNode && n.Style == 0 {
		if py := pyYAMLTag(n.Value); py != n.ShortTag() {
			t.Fatalf("plain %q is %s for yaml.v3 but %s for PyYAML\n%s", n.Value, n.ShortTag(), py, text)
		}
	}
	for _, c := range n.Content {
		checkYAML11(t, c, text)
	}
}

// FuzzWriteYAML: option maps of any keys and scalars survive writeYAML
// and parsing by gopkg.in/yaml.v3, with their types, and PyYAML would
// read every plain scalar as the same type.
func FuzzWriteYAML(f *testing.F) {
	f.Add("dtype", "fp8", int64(256), 0.85, true, "decoding_type", "Eagle3")
	f.Add("a: b", "x #y", int64(-1), 1e21, false, "yes", "null")
	f.Add("", "0x1F", int64(0), math.Inf(-1), true, "- item", "'quoted'")
	f.Add("key", "tab\there\nnewline", int64(math.MaxInt64), 100.0, false, "on", "1_000")
	f.Add("é", " leading space", int64(math.MinInt64), math.NaN(), true, "~", ".inf")
	f.Add("n", "1_", int64(7), 0.5, true, "1:20", "<<")
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
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
			t.Fatal(err)
		}
		checkYAML11(t, &doc, text)
	})
}
