package space

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// finite reports every NaN and infinity in the document by key. TOML
// allows nan and inf anywhere a float goes, and neither is a meaningful
// knob value, bound or setting: a NaN compares false with everything, so
// it slips through range checks and would reach every trial. The one
// exception is a profile's request_rate = inf ("send everything at once").
func (d *decoder) finite(v any, path string) {
	switch x := v.(type) {
	case float64:
		if math.IsNaN(x) || (math.IsInf(x, 0) && !infAllowed(path, x)) {
			d.fail(path, "must be a finite number, got %v", x)
			d.nonFinite = append(d.nonFinite, path)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			d.finite(x[k], join(path, k))
		}
	case []map[string]any:
		for i, m := range x {
			d.finite(m, fmt.Sprintf("%s[%d]", path, i))
		}
	case []any:
		d.finiteArray(x, path)
	}
}

// finiteArray reports a non-finite scalar against the array's key, once,
// and walks tables inside the array under their index.
func (d *decoder) finiteArray(arr []any, path string) {
	reported := false
	for i, e := range arr {
		switch x := e.(type) {
		case float64:
			if !reported && !isFinite(x) {
				d.fail(path, "must hold finite numbers, has %v", x)
				d.nonFinite = append(d.nonFinite, path)
				reported = true
			}
		case map[string]any, []any:
			d.finite(x, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

func infAllowed(path string, x float64) bool {
	return x > 0 && strings.HasPrefix(path, "profiles.custom.") && strings.HasSuffix(path, ".request_rate")
}

// shadowed reports whether path is, contains or lies inside a key already
// reported as non-finite: the later check would only repeat the problem.
func (d *decoder) shadowed(path string) bool {
	for _, k := range d.nonFinite {
		if k == path || within(k, path) || within(path, k) {
			return true
		}
	}
	return false
}

// within reports whether key lies inside the table or array at path.
func within(key, path string) bool {
	return path != "" && (strings.HasPrefix(key, path+".") || strings.HasPrefix(key, path+"["))
}
