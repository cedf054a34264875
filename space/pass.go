package space

import (
	"fmt"
	"strings"
)

// ParsePass reads how a declared engine takes one value: "--flag" (any
// word starting with "-"), "positional", "env:NAME" or "none".
func ParsePass(s string) (Pass, error) {
	switch {
	case s == "none":
		return Pass{}, nil
	case s == "positional":
		return Pass{Positional: true}, nil
	case strings.HasPrefix(s, "env:"):
		name := strings.TrimPrefix(s, "env:")
		if !envName(name) {
			return Pass{}, fmt.Errorf("env:NAME needs a variable name of letters, digits and _, got %q", s)
		}
		return Pass{Env: name}, nil
	case strings.HasPrefix(s, "-") && strings.TrimLeft(s, "-") != "" && !strings.ContainsAny(s, " =\t\n"):
		return Pass{Flag: s}, nil
	}
	return Pass{}, fmt.Errorf(`must be a flag like "--model", "positional", "env:NAME" or "none", got %q`, s)
}

// String is the spelling ParsePass reads.
func (p Pass) String() string {
	switch {
	case p.Flag != "":
		return p.Flag
	case p.Positional:
		return "positional"
	case p.Env != "":
		return "env:" + p.Env
	}
	return "none"
}

func envName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
