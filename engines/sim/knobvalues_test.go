package sim

import (
	"strings"
	"testing"
)

// An attention backend the simulator does not model failed every trial
// that drew it, and a draft without a card ran on invented numbers: both
// are refused at load with the values it knows (issue 48, fifth pass).
func TestRefusedValueOnTheSimulator(t *testing.T) {
	c := DefaultCards()
	for _, bad := range []struct {
		knob string
		v    any
		want string
	}{
		{"attention_backend", "flashinfr", `did you mean "flashinfer"`},
		{"speculative_draft_model", "no-such-draft", `no draft card "no-such-draft"`},
		{"speculative_draft_model", "Tengyunw/qwen3_8b_eagle", `did you mean "Tengyunw/qwen3_8b_eagle3"`},
		{"model_variant", "fp9", `model_variant "fp9" is not simulated`},
	} {
		if err := c.RefusedValue(bad.knob, bad.v); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s = %v: %v, want %q", bad.knob, bad.v, err, bad.want)
		}
	}
	for _, ok := range []struct {
		knob string
		v    any
	}{
		{"attention_backend", "fa3"}, {"attention_backend", "default"}, {"model_variant", "FP8"}, {"model_variant", "default"}, {"speculative_draft_model", "none"},
		{"speculative_draft_model", "tengyunw/qwen3_8b_eagle3"}, {"max_running", "x"}, {"attention_backend", 3},
	} {
		if err := c.RefusedValue(ok.knob, ok.v); err != nil {
			t.Errorf("%s = %v refused: %v", ok.knob, ok.v, err)
		}
	}
}
