package space

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// values checks a categorical knob's list: scalars only, no repeats, one
// type (integers and floats mix, and "default" joins any type), and every
// value legal for a knob servetune knows. It returns nil after a problem.
func (d *decoder) values(knob, path string, arr []any) []any {
	var out []any
	seen := map[string]bool{}
	for _, v := range arr {
		switch v.(type) {
		case string, int64, float64, bool:
		default:
			d.fail(path, "values must be strings, numbers or bools, has %s", typeName(v))
			return nil
		}
		if str, ok := v.(string); ok && strings.TrimSpace(str) == "" {
			d.fail(path, "holds an empty string, which no engine flag takes; \"default\" passes no flag")
			return nil
		}
		key := fmt.Sprintf("%T:%v", v, v)
		if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			// 32.0 is 32: integers and floats mix, so one number
			// written both ways is one value listed twice.
			key = fmt.Sprintf("int64:%d", int64(f))
		}
		if str, ok := v.(string); ok && knob == KnobGPU {
			// GPU names are matched without case ("h100" is the H100
			// card): two spellings are one GPU measured twice.
			key = "gpu:" + strings.ToLower(str)
		}
		if seen[key] {
			d.fail(path, "lists %v twice", FormatValue(v))
		}
		seen[key] = true
		out = append(out, v)
	}
	if mixed := mixedTypes(out); mixed != "" {
		d.fail(path, "mixes %s; a knob's values must be all numbers, all strings or all bools (\"default\" may join any)", mixed)
		return nil
	}
	for _, v := range out {
		if err := CheckValue(knob, v); err != nil {
			d.fail(path, "%v", err)
			return nil
		}
	}
	return out
}

// mixedTypes names the kinds of value in vals when there is more than one
// ("" when the list is uniform).
func mixedTypes(vals []any) string {
	var kinds []string
	for _, v := range vals {
		k := valueKind(v)
		if k != "" && !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) < 2 {
		return ""
	}
	return strings.Join(kinds, ", ")
}

func valueKind(v any) string {
	switch x := v.(type) {
	case int64, float64:
		return "numbers"
	case bool:
		return "bools"
	case string:
		if x == Default {
			return ""
		}
		return "strings"
	}
	return ""
}

// legalRange checks a low/high range of a knob servetune knows: both ends
// must be legal, an integer knob needs an integer range, and a range must
// not span an illegal gap (chunked_prefill -1..8192 holds 0).
func (d *decoder) legalRange(p Param, path string, lowV, highV any) {
	l, known := knownDomain(p.Name)
	if !known {
		return
	}
	for _, end := range []struct {
		key string
		v   any
	}{{"low", lowV}, {"high", highV}} {
		if err := CheckValue(p.Name, end.v); err != nil {
			d.fail(join(path, end.key), "%v", err)
			return
		}
	}
	switch {
	case l.integer && p.Kind != Int:
		d.fail(path, "%s must be %s: give integer low and high", p.Name, l.desc)
	case p.Low < l.min && p.High > p.Low:
		d.fail(path, "the range %s..%s holds values %s cannot take; %s must be %s", FormatValue(lowV), FormatValue(highV), p.Name, p.Name, l.desc)
	}
}
