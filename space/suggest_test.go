package space

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// A knob no engine of the space takes is taken for a typo of one the
// engine does, not for a knob to make conditional.
func TestAMistypedKnobGetsDidYouMean(t *testing.T) {
	vllm := []string{"tp", "dp", "max_running", "mem_fraction"}
	opt := testOptions()
	opt.Supports = func(e, k string) bool { return e == "vllm" && slices.Contains(vllm, k) }
	opt.Knobs = func(e string) []string { return vllm }
	for _, tc := range []struct{ knob, want, not string }{
		{"max_runing", `params.max_runing: engine vllm does not support knob "max_runing"; did you mean "max_running"?`, "when ="},
		{"frobnicate", `params.frobnicate: engine vllm does not support knob "frobnicate" (only "default"`, "did you mean"},
	} {
		src := `
[study]
name = "x"
[target]
model = "m"
gpu = "H100"
engine = "vllm"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[params.` + tc.knob + `]
values = [4, 16]
`
		_, err := Parse(context.Background(), "s.toml", src, opt)
		var se *Error
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.not) {
			t.Errorf("%s: %v\nwant %q and not %q", tc.knob, err, tc.want, tc.not)
		}
	}
}
