package engines

import (
	"bytes"
	"math"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// TensorRT-LLM's extra options file is YAML, written and read with
// gopkg.in/yaml.v3. The writer builds the document node by node so each
// value keeps its type for YAML 1.1 too (PyYAML, which TRT-LLM reads the
// file with): floats always carry a dot (1.0, 1.0e+21), and yaml.v3
// quotes strings that either version would read as anything else.

// writeYAML renders m with sorted keys, two-space indentation.
func writeYAML(m map[string]any) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(yamlMap(m)); err != nil {
		// Only a value of a type the renderers never produce gets here.
		panic("writeYAML: " + err.Error())
	}
	_ = enc.Close()
	return b.String()
}

// yamlMap is m as a mapping node, keys sorted; an empty map is {}.
func yamlMap(m map[string]any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if len(m) == 0 {
		n.Style = yaml.FlowStyle
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n.Content = append(n.Content, yamlString(k), yamlNode(m[k]))
	}
	return n
}

func yamlNode(v any) *yaml.Node {
	switch x := v.(type) {
	case map[string]any:
		return yamlMap(x)
	case nil:
		return yamlScalar("!!null", "null")
	case string:
		return yamlString(x)
	case bool:
		return yamlScalar("!!bool", strconv.FormatBool(x))
	case int64:
		return yamlScalar("!!int", strconv.FormatInt(x, 10))
	case int:
		return yamlScalar("!!int", strconv.Itoa(x))
	case float64:
		return yamlScalar("!!float", yamlFloat(x))
	}
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		panic("writeYAML: " + err.Error())
	}
	return n
}

// yamlString is s through yaml.v3's own string encoding, which quotes what
// YAML 1.1 would read as a bool or a base-60 number too (building the node
// by hand would skip those checks). = and << are quoted as well: yaml.v3
// leaves them plain, and PyYAML reads them as tags it cannot construct. A
// string that starts like a number is always quoted, as insurance where
// YAML 1.1's number forms and 1.2's differ (FuzzWriteYAML checks every
// plain scalar against PyYAML's resolver).
func yamlString(s string) *yaml.Node {
	if strings.ContainsAny(s, "\n\r") {
		// yaml.v3 would write a literal block, which loses a string
		// made only of line breaks.
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: yaml.DoubleQuotedStyle}
	}
	n := &yaml.Node{}
	_ = n.Encode(s) // a string always encodes
	if n.Style == 0 && (s == "=" || s == "<<" || s != "" && strings.ContainsRune("+-.0123456789", rune(s[0]))) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func yamlScalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
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

// readYAML parses an options file; integers come back as int64, as knobs
// hold them.
func readYAML(text string) (map[string]any, error) {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	return int64s(m).(map[string]any), nil
}

// int64s turns yaml.v3's ints into int64 throughout v.
func int64s(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case map[string]any:
		for k, e := range x {
			x[k] = int64s(e)
		}
	case []any:
		for i, e := range x {
			x[i] = int64s(e)
		}
	}
	return v
}
