package space

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/servetune/servetune/bench"
)

// Problem is one thing wrong with a space file.
type Problem struct {
	File string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

// Error lists every problem found in a space file. Callers exit with code
// 2 on it, having written nothing.
type Error struct {
	File     string
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	n := len(e.Problems)
	if n == 1 {
		fmt.Fprintf(&b, "invalid search space %s: 1 problem:", e.File)
	} else {
		fmt.Fprintf(&b, "invalid search space %s: %d problems:", e.File, n)
	}
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// Options injects what space cannot know by itself without importing the
// packages downstream of it.
type Options struct {
	// Supports reports whether an engine renders a knob; nil accepts all.
	Supports func(engine, knob string) bool
	// Engines lists the known engine names; nil accepts any.
	Engines []string
	// Profile looks up a built-in benchmark profile by name.
	Profile func(name string) (bench.Profile, bool)
	// Metric reports whether a metric name exists; nil accepts all.
	Metric func(name string) bool
	// Samples is how many random configs are drawn to detect a space no
	// point of which satisfies the rules (default 4000).
	Samples int
}

// Load reads and validates a space file.
func Load(path string, opt Options) (*Space, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problems: []Problem{{File: path, Msg: err.Error()}}}
	}
	return Parse(path, string(src), opt)
}

// Parse validates a space document; file names it in messages.
func Parse(file, src string, opt Options) (*Space, error) {
	d := &decoder{file: file, lines: keyLines(src), opt: opt}
	var raw map[string]any
	md, err := toml.Decode(src, &raw)
	if err != nil {
		var pe toml.ParseError
		line := 0
		msg := err.Error()
		if errors.As(err, &pe) {
			line, msg = pe.Position.Line, pe.Message
		}
		return nil, &Error{File: file, Problems: []Problem{{File: file, Line: line, Msg: "TOML syntax: " + msg}}}
	}
	d.keyOrder = md.Keys()
	s := d.space(raw)
	if len(d.problems) == 0 {
		d.semantic(s)
	}
	if len(d.problems) > 0 {
		sort.SliceStable(d.problems, func(i, j int) bool {
			li, lj := d.problems[i].Line, d.problems[j].Line
			if li == 0 || lj == 0 {
				return li != 0 && lj == 0
			}
			return li < lj
		})
		return nil, &Error{File: file, Problems: d.problems}
	}
	return s, nil
}

type decoder struct {
	file     string
	lines    map[string]int
	opt      Options
	keyOrder []toml.Key
	problems []Problem
}

func (d *decoder) fail(path, format string, a ...any) {
	d.problems = append(d.problems, Problem{File: d.file, Line: d.line(path), Key: path, Msg: fmt.Sprintf(format, a...)})
}

// line finds path's line, or the nearest enclosing table's.
func (d *decoder) line(path string) int {
	for p := path; p != ""; {
		if l, ok := d.lines[p]; ok {
			return l
		}
		if l, ok := d.lines[p+"[0]"]; ok {
			return l
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return 0
}

// table reads a sub-table and reports keys outside allowed as unknown.
func (d *decoder) table(parent map[string]any, key, path string, allowed ...string) map[string]any {
	v, ok := parent[key]
	if !ok {
		return map[string]any{}
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.fail(path, "must be a table, got %s", typeName(v))
		return map[string]any{}
	}
	d.unknown(m, path, allowed...)
	return m
}

func (d *decoder) unknown(m map[string]any, path string, allowed ...string) {
	if allowed == nil {
		return
	}
	for _, k := range sortedKeys(m) {
		if !containsStr(allowed, k) {
			d.fail(join(path, k), "unknown key (known: %s)", strings.Join(allowed, ", "))
		}
	}
}

func (d *decoder) str(m map[string]any, key, path, def string) string {
	v, ok := m[key]
	if !ok {
		return def
	}
	s, ok := v.(string)
	if !ok {
		d.fail(join(path, key), "must be a string, got %s", typeName(v))
		return def
	}
	return s
}

func (d *decoder) integer(m map[string]any, key, path string, def int64) int64 {
	v, ok := m[key]
	if !ok {
		return def
	}
	n, ok := v.(int64)
	if !ok {
		d.fail(join(path, key), "must be an integer, got %s", typeName(v))
		return def
	}
	return n
}

func (d *decoder) number(m map[string]any, key, path string) (float64, bool) {
	v, ok := m[key]
	if !ok {
		return 0, false
	}
	f, ok := num(v)
	if !ok {
		d.fail(join(path, key), "must be a number, got %s", typeName(v))
	}
	return f, ok
}

func (d *decoder) boolean(m map[string]any, key, path string) bool {
	v, ok := m[key]
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		d.fail(join(path, key), "must be true or false, got %s", typeName(v))
	}
	return b
}

func (d *decoder) strings(m map[string]any, key, path string) []string {
	v, ok := m[key]
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok {
		d.fail(join(path, key), "must be an array of strings, got %s", typeName(v))
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			d.fail(join(path, key), "must be an array of strings, has %s", typeName(x))
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (d *decoder) duration(m map[string]any, key, path string) time.Duration {
	s := d.str(m, key, path, "")
	if s == "" {
		return 0
	}
	t, err := time.ParseDuration(s)
	if err != nil || t < 0 {
		d.fail(join(path, key), "must be a duration like \"90m\" or \"8h\", got %q", s)
	}
	return t
}

func (d *decoder) expr(src, path string) *Expr {
	e, err := ParseExpr(src)
	if err != nil {
		d.fail(path, "syntax error in %q: %v", src, err)
		return nil
	}
	return e
}

func typeName(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("string %q", x)
	case int64:
		return fmt.Sprintf("integer %d", x)
	case float64:
		return fmt.Sprintf("float %v", x)
	case bool:
		return fmt.Sprintf("bool %v", x)
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date"
	}
	return fmt.Sprintf("%T", v)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
