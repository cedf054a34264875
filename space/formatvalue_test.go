package space

import (
	"fmt"
	"testing"
)

// FormatValue spells an integer, a bool or a string as fmt.Sprint does
// (floats have their own, non-exponent form): the form a config's values
// take in keys and transitions.
func TestFormatValueSpellsAsSprint(t *testing.T) {
	for _, v := range []any{int64(0), int64(-7), int64(1 << 40), 3, -12, true, "auto", uint8(4)} {
		if got, want := FormatValue(v), fmt.Sprint(v); got != want {
			t.Errorf("FormatValue(%T %v) = %q, want %q", v, v, got, want)
		}
	}
}
