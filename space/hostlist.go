package space

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxHosts bounds a hostlist's expansion: "n[0-99999999]" must be an
// error, not an allocation the size of the range.
const MaxHosts = 4096

// ExpandHostlist expands a SLURM hostlist, as SLURM_JOB_NODELIST spells
// it, into host names in order: "gpu[01-03,07],login1" is gpu01, gpu02,
// gpu03, gpu07, login1. A range keeps the zero padding of its lower bound;
// several bracket groups in one name multiply out ("r[1-2]n[1-2]").
func ExpandHostlist(s string) ([]string, error) {
	words, err := splitHostlist(s)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, w := range words {
		hosts, err := expandHost(w, MaxHosts)
		if err != nil {
			return nil, err
		}
		if len(out)+len(hosts) > MaxHosts {
			return nil, fmt.Errorf("hostlist %q names more than %d hosts", s, MaxHosts)
		}
		out = append(out, hosts...)
	}
	return out, nil
}

// splitHostlist splits at the commas outside brackets.
func splitHostlist(s string) ([]string, error) {
	var words []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '[':
			if depth++; depth > 1 {
				return nil, fmt.Errorf("hostlist %q: nested '[' at byte %d", s, i)
			}
		case r == ']':
			if depth--; depth < 0 {
				return nil, fmt.Errorf("hostlist %q: ']' without '[' at byte %d", s, i)
			}
		case r == ',' && depth == 0:
			words = append(words, s[start:i])
			start = i + 1
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			return nil, fmt.Errorf("hostlist %q: white space at byte %d", s, i)
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("hostlist %q: '[' without ']'", s)
	}
	return append(words, s[start:]), nil
}

// expandHost expands one name's bracket groups, left to right, into at
// most limit names.
func expandHost(w string, limit int) ([]string, error) {
	if w == "" {
		return nil, errors.New("hostlist has an empty host name")
	}
	open := strings.IndexByte(w, '[')
	if open < 0 {
		return []string{w}, nil
	}
	end := open + strings.IndexByte(w[open:], ']') // balanced: splitHostlist checked
	ids, err := hostRanges(w[open+1:end], limit)
	if err != nil {
		return nil, fmt.Errorf("hostlist %q: %w", w, err)
	}
	tails := []string{""}
	if rest := w[end+1:]; rest != "" {
		if tails, err = expandHost(rest, limit); err != nil {
			return nil, err
		}
	}
	if len(ids)*len(tails) > limit {
		return nil, fmt.Errorf("hostlist %q names more than %d hosts", w, MaxHosts)
	}
	out := make([]string, 0, len(ids)*len(tails))
	for _, id := range ids {
		for _, t := range tails {
			out = append(out, w[:open]+id+t)
		}
	}
	return out, nil
}

// hostRanges expands "01-03,07" into 01, 02, 03, 07.
func hostRanges(inner string, limit int) ([]string, error) {
	var out []string
	for _, part := range strings.Split(inner, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, errA := hostNumber(lo)
		b, errB := hostNumber(hi)
		if err := errors.Join(errA, errB); err != nil {
			return nil, err
		}
		if b < a {
			return nil, fmt.Errorf("range %q runs backwards", part)
		}
		if b-a >= limit-len(out) {
			return nil, fmt.Errorf("names more than %d hosts", MaxHosts)
		}
		for n := a; n <= b; n++ {
			out = append(out, fmt.Sprintf("%0*d", len(lo), n))
		}
	}
	return out, nil
}

// hostNumber reads one bound: decimal digits, at most 9 of them.
func hostNumber(s string) (int, error) {
	if s == "" || len(s) > 9 || strings.Trim(s, "0123456789") != "" {
		return 0, fmt.Errorf("%q is not a host number (1 to 9 digits)", s)
	}
	return strconv.Atoi(s)
}
