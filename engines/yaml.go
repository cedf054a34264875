package engines

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// TensorRT-LLM's extra options file is YAML. servetune writes a small,
// fixed subset (nested maps of scalars, {} and null; FuzzWriteYAML checks
// it against a real YAML parser) and reads the same
// subset plus one-line flow maps ({a: 1, b: true}), which is how people
// write these files by hand. A YAML library would be more than this needs.

// writeYAML renders m with sorted keys, two-space indentation.
func writeYAML(m map[string]any) string {
	var b strings.Builder
	writeYAMLMap(&b, m, 0)
	return b.String()
}

func writeYAMLMap(b *strings.Builder, m map[string]any, indent int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		writeYAMLKey(b, k, indent)
		switch v := m[k].(type) {
		case map[string]any:
			if len(v) == 0 {
				b.WriteString(" {}\n")
				continue
			}
			b.WriteString("\n")
			writeYAMLMap(b, v, indent+2)
		default:
			fmt.Fprintf(b, " %s\n", yamlScalar(v))
		}
	}
}

// writeYAMLKey writes "key:". YAML caps an implicit key at 1024
// characters; a longer one needs the explicit "? key" form.
func writeYAMLKey(b *strings.Builder, k string, indent int) {
	pad := strings.Repeat(" ", indent)
	key := yamlString(k)
	if len(key) > 1000 {
		fmt.Fprintf(b, "%s? %s\n%s:", pad, key, pad)
		return
	}
	fmt.Fprintf(b, "%s%s:", pad, key)
}

func yamlScalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return yamlString(x)
	case float64:
		return yamlFloat(x)
	default:
		return fmt.Sprint(x)
	}
}

// yamlString leaves plain only what YAML 1.1 (PyYAML, which TRT-LLM reads
// the file with) and 1.2 both read back as the same string: identifiers
// and paths that no resolver takes for a number, bool or null. Everything
// else is double-quoted; Go's escapes are a subset of YAML's for valid
// UTF-8, which TOML guarantees.
func yamlString(s string) string {
	switch strings.ToLower(s) {
	case "", "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~":
		return strconv.Quote(s)
	}
	for i, r := range s {
		lead := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_' || r == '/'
		if !lead && (i == 0 || !(r >= '0' && r <= '9' || r == '.' || r == '-')) {
			return strconv.Quote(s)
		}
	}
	return s
}

// yamlFloat writes a float that reads back as a float: with a dot (1.0,
// 1.0e+21; YAML 1.1 needs it) and YAML's spelling of the non-finite ones.
func yamlFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return ".nan"
	case math.IsInf(x, 1):
		return ".inf"
	case math.IsInf(x, -1):
		return "-.inf"
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if len(s) > 24 {
		s = strconv.FormatFloat(x, 'e', -1, 64)
	}
	if strings.Contains(s, ".") {
		return s
	}
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		return s[:i] + ".0" + s[i:]
	}
	return s + ".0"
}

// readYAML parses the subset writeYAML produces, plus flow maps.
func readYAML(text string) (map[string]any, error) {
	type frame struct {
		indent int
		m      map[string]any
	}
	root := map[string]any{}
	stack := []frame{{-1, root}}
	for n, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || trimmed == "---" {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		for len(stack) > 1 && indent <= stack[len(stack)-1].indent {
			stack = stack[:len(stack)-1]
		}
		k, v, ok := strings.Cut(trimmed, ":")
		if !ok {
			return nil, fmt.Errorf("line %d: want key: value, got %q", n+1, trimmed)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		parent := stack[len(stack)-1].m
		if v == "" {
			child := map[string]any{}
			parent[k] = child
			stack = append(stack, frame{indent, child})
			continue
		}
		val, err := yamlValue(v)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		parent[k] = val
	}
	return root, nil
}

func yamlValue(v string) (any, error) {
	if strings.HasPrefix(v, "{") {
		if !strings.HasSuffix(v, "}") {
			return nil, fmt.Errorf("unterminated flow map %q", v)
		}
		m := map[string]any{}
		body := strings.TrimSpace(v[1 : len(v)-1])
		if body == "" {
			return m, nil
		}
		for _, kv := range strings.Split(body, ",") {
			k, x, ok := strings.Cut(kv, ":")
			if !ok {
				return nil, fmt.Errorf("flow map entry %q: want key: value", kv)
			}
			val, err := yamlValue(strings.TrimSpace(x))
			if err != nil {
				return nil, err
			}
			m[strings.TrimSpace(k)] = val
		}
		return m, nil
	}
	switch v {
	case "null", "~":
		return nil, nil
	case "true", "True":
		return true, nil
	case "false", "False":
		return false, nil
	}
	if s, err := strconv.Unquote(v); err == nil {
		return s, nil
	}
	if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2 {
		return strings.ReplaceAll(v[1:len(v)-1], "''", "'"), nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, nil
	}
	return v, nil
}
