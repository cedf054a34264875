package space

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/internal/suggest"
)

// Options injects what space cannot know by itself without importing the
// packages downstream of it.
type Options struct {
	// Supports reports whether an engine renders a knob; nil accepts all.
	Supports func(engine, knob string) bool
	// Knobs lists the knobs an engine renders, for did-you-mean on a knob
	// no engine of the space takes; nil suggests none.
	Knobs func(engine string) []string
	// Engines lists the known engine names; nil accepts any.
	Engines []string
	// Profile looks up a built-in benchmark profile by name.
	Profile func(name string) (bench.Profile, bool)
	// Metric reports whether a metric name exists; nil accepts all.
	Metric func(name string) bool
	// Storage reads a [study] storage value (pgurl.SecretKeysOf): the
	// secrets it carries, which a space file must not, or why it is
	// refused (a message that never quotes a secret). nil accepts any.
	Storage func(value string) (secretKeys []string, err error)
	// Sampler checks the [study] sampler name against the number of
	// objectives (samplers.Check); nil accepts any name. Its error is
	// reported against study.sampler.
	Sampler func(name string, objectives int) error
	// CheckTarget checks what only the runner knows, such as whether the
	// simulator has cards for target.gpu and target.model. It is called
	// with every decoded target (it decides by t.Runner whether it
	// applies) and returns problems with Key and Msg set; Parse adds the
	// file and line. nil accepts any target.
	CheckTarget func(t Target) []Problem
	// EngineFiles are files of [engines.<name>] declarations read after
	// the space's own and its includes (the --engines flag).
	EngineFiles []string
	// Declared are engines known before the file is read: those a study
	// recorded when it ran. The file's own declarations replace them, and
	// an include that cannot be read is skipped (the record has it), so a
	// stored study reads on a machine without its engines files.
	Declared map[string]EngineDecl
	// Samples is how many random configs are drawn to detect a space no
	// point of which satisfies the rules (default 4000).
	Samples int
	// NodesGiven says the hosts come from the command line (--nodes), so
	// node_launch without target.nodes is complete.
	NodesGiven bool
	// EngineGPUs is an engine's own GPU count for a config (engines.GPUs),
	// so that configs needing more GPUs than a node has are refused at
	// load; nil skips those checks.
	EngineGPUs func(c Config, t Target) int
	// RefusedValue says why the target's version of an engine refuses a
	// knob's value whatever the other knobs (engines.RefusedValue); nil
	// accepts every value.
	RefusedValue func(t Target, engine, knob string, value any) error
	// Prior checks an explicit prior = "sim": whether the simulator has
	// the target's cards and can guide the sampler; nil accepts it.
	Prior func(sampler string, t Target) error
	// Gated says that a knob exists only when knob gate has value (the
	// per-side knobs of a disaggregated deployment: disaggregation =
	// "pd"); nil gates nothing.
	Gated func(knob string) (gate, value string, ok bool)
	// ContextLimit is the longest context the target's model takes
	// (a simulated target's card: max_context), so that a max_model_len
	// above it is refused at load; 0 or nil: unknown, unchecked.
	ContextLimit func(t Target) int
	// NoDatasets skips opening the profiles' dataset files: a stored
	// study's space is read where those files may not be.
	NoDatasets bool
}

// Load reads and validates a space file. It returns a *Error for a bad
// file, and ctx's error (wrapped) when ctx ends first.
func Load(ctx context.Context, path string, opt Options) (*Space, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{File: path, Problems: []Problem{{File: path, Msg: err.Error()}}}
	}
	defer f.Close()
	// Read one byte past the limit so that an oversized file is reported
	// without reading all of it.
	src, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Error{File: path, Problems: []Problem{{File: path, Msg: err.Error()}}}
	}
	return Parse(ctx, path, string(src), opt)
}

// Parse validates a space document; file names it in messages. The work
// runs in its own goroutine so that a cancelled ctx returns at once; the
// size and nesting limits bound what that goroutine can still cost.
func Parse(ctx context.Context, file, src string, opt Options) (*Space, error) {
	type result struct {
		s   *Space
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := parse(ctx, file, src, opt)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("reading search space %s: %w", file, ctx.Err())
	}
}

func parse(ctx context.Context, file, src string, opt Options) (*Space, error) {
	if p := limits(file, src); p != nil {
		return nil, &Error{File: file, Problems: []Problem{*p}}
	}
	d := &decoder{file: file, lines: keyLines(src), opt: opt}
	var raw map[string]any
	md, err := toml.Decode(src, &raw)
	if err != nil {
		return nil, syntaxError(file, err)
	}
	d.keyOrder = md.Keys()
	d.finite(raw, "")
	s := d.space(raw)
	if len(d.problems) == 0 {
		d.semantic(ctx, s)
	}
	for _, p := range d.later {
		d.fail(p.Key, "%s", p.Msg)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("reading search space %s: %w", file, err)
	}
	if len(d.problems) > 0 {
		sortProblems(d.problems)
		return nil, &Error{File: file, Problems: d.problems}
	}
	sortProblems(d.notes)
	s.Notes = d.notes
	return s, nil
}

func syntaxError(file string, err error) error {
	var pe toml.ParseError
	line := 0
	msg := err.Error()
	if errors.As(err, &pe) {
		line, msg = pe.Position.Line, pe.Message
	}
	return &Error{File: file, Problems: []Problem{{File: file, Line: line, Msg: "TOML syntax: " + msg}}}
}

// sortProblems orders problems by line; those without a line go last.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		li, lj := ps[i].Line, ps[j].Line
		if li == 0 || lj == 0 {
			return li != 0 && lj == 0
		}
		return li < lj
	})
}

type decoder struct {
	file     string
	lines    map[string]int
	opt      Options
	keyOrder []toml.Key
	problems []Problem
	// nonFinite holds the keys already reported for a NaN or infinity, so
	// the checks that read them do not report them again.
	nonFinite []string
	// declaredHere are the engines declared by the file and its
	// includes so far, shared with the decoders of included files.
	declaredHere map[string]bool
	// later are problems from Options.CheckTarget, reported after the
	// semantic checks (which run only on an otherwise clean file).
	later []Problem
	// notes are definitions the study will not use (Space.Notes).
	notes []Problem
}

// note records a definition the study will not use: told at load, not
// refused (Space.Notes).
func (d *decoder) note(path, format string, a ...any) {
	d.notes = append(d.notes, Problem{File: d.file, Line: d.line(path), Key: path, Msg: fmt.Sprintf(format, a...)})
}

func (d *decoder) fail(path, format string, a ...any) {
	if d.shadowed(path) {
		return
	}
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(allowed, k) {
			d.fail(join(path, k), "unknown key%s (known: %s)", suggest.Hint(k, allowed), strings.Join(allowed, ", "))
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
	f, ok := Number(v, false)
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

func isFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
