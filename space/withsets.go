package space

import (
	"fmt"
	"strconv"
	"strings"
)

// WithSets is the space's baseline with `servetune command`'s --set
// knob=value overrides, typed by the knob's declared domain (or by the
// look of the value for knobs the space does not declare), on the
// target's engine and checked against the rules. Every error is bad
// input.
func (sp *Space) WithSets(sets []string) (Config, error) {
	cfg := Config{}
	for k, v := range sp.Baseline {
		cfg[k] = v
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: want knob=value", s)
		}
		val, err := knobValue(sp, k, v)
		if err == nil {
			err = CheckValue(k, val)
		}
		if err != nil {
			return nil, fmt.Errorf("--set %s: %v", k, err)
		}
		cfg[k] = val
	}
	cfg = sp.WithTargetEngine(cfg)
	if r := sp.Check(cfg); r != nil {
		msg := r.Message
		if msg == "" {
			msg = r.Expr.String()
		}
		return nil, fmt.Errorf("config breaks a rule of %s: %s", sp.File, msg)
	}
	return cfg, nil
}

// knobValue types a --set value by the knob's declared domain.
func knobValue(sp *Space, k, v string) (any, error) {
	if v == Default {
		return v, nil
	}
	p, declared := sp.Param(k)
	switch {
	case declared && p.Kind == Int:
		return strconv.ParseInt(v, 10, 64)
	case declared && p.Kind == Float:
		return strconv.ParseFloat(v, 64)
	case declared:
		for _, c := range p.Values {
			if FormatValue(c) == v {
				return c, nil // keeps the declared type (bool, int64, ...)
			}
		}
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n, nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f, nil
	}
	if b, err := strconv.ParseBool(v); err == nil && (v == "true" || v == "false") {
		return b, nil
	}
	return v, nil
}
