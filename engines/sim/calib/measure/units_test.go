package measure

import (
	"errors"
	"strings"
	"testing"
)

// TestMetricRefusals: a negative, infinite or NaN latency is refused
// naming its key and line (it used to be dropped silently, and the fit ran
// on what was left), and latencies in seconds are refused as such.
func TestMetricRefusals(t *testing.T) {
	vllm := "{\"engine\": \"vllm\", \"model\": \"m\", \"gpu\": \"H100\", \"result\": {\n\"completed\": 10, \"total_input_tokens\": 100, \"total_output_tokens\": 100,\n\"mean_ttft_ms\": 80,\n\"mean_itl_ms\": 12}}"
	ours := "{\"engine\": \"vllm\", \"model\": \"m\", \"gpu\": \"H100\", \"profile\": {\"dataset\": \"random\", \"input_len\": 10, \"output_len\": 10, \"num_prompts\": 10},\n\"result\": {\"schema_version\": 1, \"values\": {\n\"mean_ttft_ms\": 80,\n\"mean_tpot_ms\": 12}}}"
	cases := []struct {
		name, src, key, want string
		line                 int
	}{
		{"negative TTFT", strings.Replace(vllm, `"mean_ttft_ms": 80`, `"mean_ttft_ms": -80`, 1), "result.mean_ttft_ms", "finite number >= 0", 3},
		{"infinite TTFT", strings.Replace(vllm, `"mean_ttft_ms": 80`, `"mean_ttft_ms": 1e999`, 1), "result.mean_ttft_ms", "finite number >= 0", 3},
		{"a string ITL", strings.Replace(vllm, `"mean_itl_ms": 12`, `"mean_itl_ms": "NaN"`, 1), "result.mean_itl_ms", "finite number >= 0", 4},
		{"negative ITL", strings.Replace(vllm, `"mean_itl_ms": 12`, `"mean_itl_ms": -1`, 1), "result.mean_itl_ms", "finite number >= 0", 4},
		{"seconds", strings.NewReplacer(`"mean_ttft_ms": 80`, `"mean_ttft_ms": 0.08`, `"mean_itl_ms": 12`, `"mean_itl_ms": 0.012`).Replace(vllm), "result.mean_ttft_ms", "look like seconds", 3},
		{"seconds in a servetune result", strings.NewReplacer(`"mean_ttft_ms": 80`, `"mean_ttft_ms": 0.08`, `"mean_tpot_ms": 12`, `"mean_tpot_ms": 0.012`).Replace(ours), "result.mean_ttft_ms", "look like seconds", 3},
		{"a load too large to simulate", strings.Replace(ours, `"num_prompts": 10`, `"num_prompts": 1000000000000`, 1), "profile.num_prompts", "more than", 1},
		{"negative in a servetune result", strings.Replace(ours, `"mean_tpot_ms": 12`, `"mean_tpot_ms": -12`, 1), "result.mean_tpot_ms", "finite number >= 0", 4},
	}
	for _, c := range cases {
		_, err := Parse("f.json", []byte(c.src), nil)
		var e *Error
		if !errors.As(err, &e) || e.Key != c.key || e.Line != c.line || !strings.Contains(e.Msg, c.want) {
			t.Errorf("%s: %v, want line %d key %s saying %q", c.name, err, c.line, c.key, c.want)
		}
	}
	for _, src := range []string{vllm, ours} {
		if _, err := Parse("f.json", []byte(src), nil); err != nil {
			t.Errorf("valid run refused: %v", err)
		}
	}
}

func TestLooksLikeSeconds(t *testing.T) {
	cases := []struct {
		means []float64
		want  bool
	}{
		{[]float64{0.08, 0.012}, true},
		{[]float64{0.5}, true},
		{[]float64{80, 12}, false},
		{[]float64{0.9, 12}, false}, // a fast first token, ms ITL: milliseconds
		{[]float64{0, 0}, false},    // nothing given
		{nil, false},
	}
	for _, c := range cases {
		if got := LooksLikeSeconds(c.means...); got != c.want {
			t.Errorf("LooksLikeSeconds(%v) = %v, want %v", c.means, got, c.want)
		}
	}
}
