package prior

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// FuzzNumericKey: numericKey never panics, and what it accepts is the
// knob before the first "=" and a finite number that the rest parses to.
func FuzzNumericKey(f *testing.F) {
	for _, s := range []string{"mem_fraction=0.85", "max_running=512", "engine=vllm", "x=NaN", "x=1e309", "=1", "a=b=1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, k string) {
		name, x, ok := numericKey(k)
		if !ok {
			return
		}
		before, rest, found := strings.Cut(k, "=")
		if !found || name != before {
			t.Fatalf("numericKey(%q) name %q, want %q", k, name, before)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("numericKey(%q) = %v, want a finite number", k, x)
		}
		if want, err := strconv.ParseFloat(rest, 64); err != nil || want != x {
			t.Fatalf("numericKey(%q) = %v, want %v (%v)", k, x, want, err)
		}
	})
}
