package search

import "github.com/servetune/servetune/space"

// KnobKeys are c's knob values as "knob=value" keys (KnobKey), in the
// config's key order: what the prior's residual and the confirmation
// pool learn per knob value.
func KnobKeys(c space.Config) []string {
	var ks []string
	for _, k := range c.Keys() {
		ks = append(ks, KnobKey(k, c[k]))
	}
	return ks
}

// KnobKey is the key of one knob value: "knob=value".
func KnobKey(name string, v any) string { return name + "=" + space.FormatValue(v) }
