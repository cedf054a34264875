package space

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Default is the categorical value that means "do not pass this flag; let
// the engine decide".
const Default = "default"

// Config is one point of a search space: knob name → value. Values are
// string, int64, float64 or bool. Only knobs that exist under the config's
// conditions are present. The "engine" knob (or the target's only engine)
// says which engine the config is for.
type Config map[string]any

// Has reports whether the knob is present and not "default".
func (c Config) Has(k string) bool {
	v, ok := c[k]
	if !ok {
		return false
	}
	s, isStr := v.(string)
	return !isStr || s != Default
}

// String returns the knob's value as text ("" when absent).
func (c Config) String(k string) string {
	v, ok := c[k]
	if !ok {
		return ""
	}
	return FormatValue(v)
}

// Int returns an integer knob; ok is false when absent, default or not a
// whole number.
func (c Config) Int(k string) (int64, bool) {
	switch v := c[k].(type) {
	case int64:
		return v, true // exact beyond 2^53, unlike a float64
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	f, ok := Number(c[k], false)
	return int64(f), ok && f == math.Trunc(f) && math.Abs(f) < 1<<63
}

// Float returns a numeric knob as float64; a numeric string counts.
func (c Config) Float(k string) (float64, bool) { return Number(c[k], true) }

// Bool returns a boolean knob; "true"/"false" strings count.
func (c Config) Bool(k string) (bool, bool) {
	switch v := c[k].(type) {
	case bool:
		return v, true
	case string:
		b, err := strconv.ParseBool(v)
		return b, err == nil
	}
	return false, false
}

// Engine is the engine the config targets.
func (c Config) Engine() string { return c.String("engine") }

// Keys returns the knob names, sorted.
func (c Config) Keys() []string {
	ks := make([]string, 0, len(c))
	for k := range c {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Key is a canonical text of the config, equal for equal configs; studies
// use it to recognise a config that was already measured.
func (c Config) Key() string {
	b, _ := json.Marshal(c.normalized())
	return string(b)
}

// Summary is a short one-line "k=v k=v" text in key order.
func (c Config) Summary() string {
	var b strings.Builder
	for i, k := range c.Keys() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s", k, FormatValue(c[k]))
	}
	return b.String()
}

// Clone returns a copy.
func (c Config) Clone() Config {
	out := make(Config, len(c))
	for k, v := range c {
		out[k] = v
	}
	return out
}

// normalized maps ints held as int or float64 to int64 so that a config
// decoded from JSON and one built in memory have the same Key.
func (c Config) normalized() map[string]any {
	out := make(map[string]any, len(c))
	for k, v := range c {
		out[k] = Normalize(v)
	}
	return out
}

// Normalize converts a decoded value to the canonical Go type.
func Normalize(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

// FormatValue renders a knob value the way it is written in TOML and flags.
func FormatValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case int64: // what fmt.Sprint gives, without its reflection
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	default:
		return fmt.Sprint(x)
	}
}

// UnmarshalJSON decodes numbers as int64 when integral.
func (c *Config) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err
	}
	out := make(Config, len(m))
	for k, v := range m {
		n, isNum := v.(json.Number)
		if isNum && !strings.ContainsAny(n.String(), ".eE") {
			out[k] = Normalize(n)
		} else if isNum {
			f, _ := n.Float64()
			out[k] = f
		} else {
			out[k] = v
		}
	}
	*c = out
	return nil
}
