package engines

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/servetune/servetune/space"
)

// renderer accumulates one command. Adapters call its helpers in their
// canonical flag order; value errors are collected, not returned one by
// one, so a bad config is reported whole.
type renderer struct {
	engine string
	cfg    space.Config
	args   []string
	env    map[string]string
	errs   []error
}

func newRenderer(engine string, cfg space.Config, program ...string) *renderer {
	return &renderer{engine: engine, cfg: cfg, args: program, env: map[string]string{}}
}

func (r *renderer) fail(knob, format string, a ...any) {
	r.errs = append(r.errs, fmt.Errorf("knob %s: %s", knob, fmt.Sprintf(format, a...)))
}

func (r *renderer) has(k string) bool { return r.cfg.Has(k) }

func (r *renderer) int(k string) (int64, bool) {
	if !r.has(k) {
		return 0, false
	}
	n, ok := r.cfg.Int(k)
	if !ok {
		r.fail(k, "want an integer, got %v", r.cfg[k])
	}
	return n, ok
}

func (r *renderer) float(k string) (float64, bool) {
	if !r.has(k) {
		return 0, false
	}
	f, ok := r.cfg.Float(k)
	if !ok {
		r.fail(k, "want a number, got %v", r.cfg[k])
	}
	return f, ok
}

func (r *renderer) bool(k string) (val, ok bool) {
	if !r.has(k) {
		return false, false
	}
	b, ok := r.cfg.Bool(k)
	if !ok {
		r.fail(k, "want true or false, got %v", r.cfg[k])
	}
	return b, ok
}

func (r *renderer) str(k string) (string, bool) {
	if !r.has(k) {
		return "", false
	}
	return r.cfg.String(k), true
}

// enum returns the knob's value spelled the engine's way: aliases maps the
// vocabulary's spellings to the engine's, allowed lists what the engine
// version accepts (nil: anything).
func (r *renderer) enum(k string, aliases map[string]string, allowed []string) (string, bool) {
	v, ok := r.str(k)
	if !ok {
		return "", false
	}
	if a, isAlias := aliases[v]; isAlias {
		v = a
	}
	if allowed != nil && !slices.Contains(allowed, v) {
		r.fail(k, "%s does not accept %q (accepted: %s)", r.engine, r.cfg.String(k), strings.Join(allowed, ", "))
		return "", false
	}
	return v, true
}

func (r *renderer) flag(name, value string) { r.args = append(r.args, name+"="+value) }
func (r *renderer) bare(name string)        { r.args = append(r.args, name) }

func (r *renderer) intFlag(k, name string) {
	if n, ok := r.int(k); ok {
		r.flag(name, strconv.FormatInt(n, 10))
	}
}

func (r *renderer) fractionFlag(k, name string) {
	if f, ok := r.float(k); ok {
		if f <= 0 || f > 1 {
			r.fail(k, "want a fraction in (0, 1], got %v", f)
			return
		}
		r.flag(name, space.FormatValue(f))
	}
}

// trueFlag renders a store_true flag when the knob is true; false is the
// engine's default and renders nothing.
func (r *renderer) trueFlag(k, name string) {
	if b, ok := r.bool(k); ok && b {
		r.bare(name)
	}
}

func (r *renderer) command(program int) (Command, error) {
	if len(r.errs) > 0 {
		return Command{}, &Failure{Class: InvalidConfig, Message: r.engine + ": " + errors.Join(r.errs...).Error()}
	}
	c := Command{Argv: r.args, Program: program}
	if len(r.env) > 0 {
		c.Env = r.env
	}
	return c, nil
}

// flagDef is one accepted flag for Parse: its spellings, whether it takes
// a value, and how it sets knobs.
type flagDef struct {
	names []string
	value bool
	set   func(p *parser, v string) error
}

type parser struct {
	engine string
	out    Parsed
	// seen records which flags were present, for knobs derived from
	// several flags (vLLM's expert parallel size).
	seen map[string]bool
}

func setInt(k string) func(*parser, string) error {
	return func(p *parser, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("knob %s: invalid int value %q", k, v)
		}
		p.out.Config[k] = n
		return nil
	}
}

func setFloat(k string) func(*parser, string) error {
	return func(p *parser, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("knob %s: invalid float value %q", k, v)
		}
		p.out.Config[k] = f
		return nil
	}
}

func setStr(k string) func(*parser, string) error {
	return func(p *parser, v string) error { p.out.Config[k] = v; return nil }
}

func setBool(k string, b bool) func(*parser, string) error {
	return func(p *parser, _ string) error { p.out.Config[k] = b; return nil }
}

// parseFlags walks args against defs. Program words are skipped by the
// caller; a first bare word is the model when positionalModel is set.
func parseFlags(engine string, args []string, defs []flagDef, positionalModel bool) (Parsed, *parser, error) {
	p := &parser{engine: engine, out: Parsed{Config: space.Config{}}, seen: map[string]bool{}}
	byName := map[string]flagDef{}
	for _, d := range defs {
		for _, n := range d.names {
			byName[n] = d
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if positionalModel && p.out.Model == "" {
				p.out.Model = a
			} else {
				p.out.Extra = append(p.out.Extra, a)
			}
			continue
		}
		name, val, hasEq := strings.Cut(a, "=")
		d, ok := byName[name]
		if !ok {
			p.out.Extra = append(p.out.Extra, a)
			if !hasEq && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				p.out.Extra = append(p.out.Extra, args[i])
			}
			continue
		}
		switch {
		case d.value && !hasEq:
			if i+1 >= len(args) {
				return Parsed{}, nil, invalid("%s: argument %s: expected one argument", engine, name)
			}
			i++
			val = args[i]
		case !d.value && hasEq:
			return Parsed{}, nil, invalid("%s: argument %s: ignored explicit argument %q", engine, name, val)
		}
		p.seen[d.names[0]] = true
		if err := d.set(p, val); err != nil {
			return Parsed{}, nil, invalid("%s: argument %s: %v", engine, name, err)
		}
	}
	return p.out, p, nil
}

// listenDefs are the flags every engine uses for host, port and served
// model name, in the engine's spelling.
func listenDefs(host, port, served string) []flagDef {
	defs := []flagDef{
		{names: []string{host}, value: true, set: func(p *parser, v string) error { p.out.Host = v; return nil }},
		{names: []string{port}, value: true, set: func(p *parser, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("invalid port %q", v)
			}
			p.out.Port = n
			return nil
		}},
	}
	if served != "" {
		defs = append(defs, flagDef{names: []string{served}, value: true, set: func(p *parser, v string) error { p.out.ServedName = v; return nil }})
	}
	return defs
}

// skipProgram drops leading program words: the longest prefix of args
// whose base names match program (so /opt/venv/bin/python3 matches python3).
func skipProgram(args, program []string) []string {
	if len(args) < len(program) {
		return args
	}
	for i, w := range program {
		if filepath.Base(args[i]) != w {
			return args
		}
	}
	return args[len(program):]
}

func itoa(n int) string { return strconv.Itoa(n) }
