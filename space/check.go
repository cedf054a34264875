package space

import (
	"fmt"
	"strings"
)

// CheckConfig reports what makes c a config that cannot run as declared:
// a value no engine can take (CheckValue), a value outside its knob's
// declared domain (Outside), a broken rule. Problems carry the knob as
// Key, or "" for a rule; File and Line are the caller's to fill. Knobs
// the space does not declare are only checked with CheckValue, and a
// knob left out simply takes the engine's default.
func (s *Space) CheckConfig(c Config) []Problem {
	var out []Problem
	illegal := map[string]bool{}
	for _, k := range c.Keys() {
		if err := CheckValue(k, c[k]); err != nil {
			out = append(out, Problem{Key: k, Msg: err.Error()})
			illegal[k] = true
		}
	}
	for _, p := range s.Outside(c) {
		if !illegal[p.Key] {
			out = append(out, p)
		}
	}
	if i, ok := s.brokenRule(s.WithTargetEngine(c)); ok {
		out = append(out, Problem{Msg: fmt.Sprintf("breaks rules[%d]: %s", i, s.Rules[i].describe())})
	}
	return out
}

// Outside reports the values of c that its knobs' declared domains do not
// hold, and an engine other than the target's. "default" is never outside.
func (s *Space) Outside(c Config) []Problem {
	var out []Problem
	for _, k := range c.Keys() {
		v := c[k]
		if str, ok := v.(string); ok && str == Default {
			continue
		}
		p, declared := s.Param(k)
		switch {
		case declared && !p.Contains(v) && p.Kind == Categorical:
			// "outside [4096, 16384]" would read as a range holding 8192.
			out = append(out, Problem{Key: k, Msg: fmt.Sprintf("%s is not one of the knob's values %s", describe(v), p.Domain())})
		case declared && !p.Contains(v):
			out = append(out, Problem{Key: k, Msg: fmt.Sprintf("%s is outside the knob's domain %s", describe(v), p.Domain())})
		case !declared && k == "engine" && s.Target.Engine != "" && FormatValue(v) != s.Target.Engine:
			out = append(out, Problem{Key: k, Msg: fmt.Sprintf("%s is not the target's engine %q", describe(v), s.Target.Engine)})
		}
	}
	return out
}

// Domain describes the knob's domain as the file declares it.
func (p Param) Domain() string {
	if p.Kind == Categorical {
		vals := make([]string, len(p.Values))
		for i, v := range p.Values {
			vals[i] = describe(v)
		}
		return "[" + strings.Join(vals, ", ") + "]"
	}
	d := FormatValue(p.Low) + ".." + FormatValue(p.High)
	switch {
	case p.Step > 0:
		d += " step " + FormatValue(p.Step)
	case p.Log:
		d += " (log)"
	}
	return d
}

func (r Rule) describe() string {
	if r.Message != "" {
		return r.Message
	}
	return r.Expr.String()
}
