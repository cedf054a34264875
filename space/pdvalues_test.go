package space

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// pdOptions are gatedOptions whose GPU count adds up a disaggregated
// layout's servers, as engines.GPUs does.
func pdOptions() Options {
	o := gatedOptions()
	o.EngineGPUs = func(c Config, t Target) int {
		n := func(k string) int64 {
			v, ok := c.Int(k)
			if !ok || v < 1 {
				return 1
			}
			return v
		}
		if c.String("disaggregation") != "pd" {
			return int(n("tp") * n("dp"))
		}
		return int(n("prefill_instances")*n("prefill_tp") + n("decode_instances")*n("decode_tp"))
	}
	return o
}

// refusedKey parses src and returns the problem naming key, failing the
// test when the file loads or no problem names key.
func refusedKey(t *testing.T, name, src string, opt Options, key string) Problem {
	t.Helper()
	_, err := Parse(context.Background(), "x.toml", src, opt)
	var se *Error
	if !errors.As(err, &se) {
		t.Errorf("%s: loads (err %v), want a problem naming %s", name, err, key)
		return Problem{}
	}
	for _, p := range se.Problems {
		if p.Key == key && p.Line > 0 {
			return p
		}
	}
	t.Errorf("%s: problems %v, want one naming %s with a line", name, se.Problems, key)
	return Problem{}
}

// TestPDValuesRefused: a disaggregated deployment's counts and values
// that no engine takes, or a layout the target cannot hold, are refused
// at load naming the knob; before, they were simulated as complete trials.
func TestPDValuesRefused(t *testing.T) {
	cases := []struct {
		name, extra, key, want string
	}{
		{"no prefill server", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.prefill_instances]\nvalues = [0]\n", "params.prefill_instances.values", "integer >= 1"},
		{"a negative count", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.decode_instances]\nvalues = [-1]\n", "params.decode_instances.values", "got -1"},
		{"a fraction of a server", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.decode_instances]\nvalues = [1.5]\n", "params.decode_instances.values", "got 1.5"},
		{"a count range from 0", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.decode_instances]\nlow = 0\nhigh = 2\n", "params.decode_instances.low", "integer >= 1"},
		{"a side's tp of 0", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.decode_tp]\nvalues = [0]\n", "params.decode_tp.values", "integer >= 1"},
		{"a side's mem_fraction above 1", "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.prefill_mem_fraction]\nvalues = [1.5]\n", "params.prefill_mem_fraction.values", "(0, 1]"},
		{"an unknown mode", "[params.disaggregation]\nvalues = [\"none\", \"pd\", \"xd\"]\n", "params.disaggregation.values", `did you mean "pd"`},
		{"a bool mode", "[params.disaggregation]\nvalues = [true]\n", "params.disaggregation.values", "a bool"},
		{"a layout larger than the target", "[params.disaggregation]\nvalues = [\"pd\"]\n[params.prefill_instances]\nvalues = [4]\n", "params.prefill_instances", "needs 9 GPUs"},
	}
	for _, c := range cases {
		src := strings.Replace(gatedSrc, "%s", c.extra, 1)
		if p := refusedKey(t, c.name, src, pdOptions(), c.key); p.Key != "" && !strings.Contains(p.Msg, c.want) {
			t.Errorf("%s: %s, want it to say %q", c.name, p, c.want)
		}
	}
}

// TestPDLayoutThatFits: a layout within the target, and a rule that keeps
// the larger ones out, load.
func TestPDLayoutThatFits(t *testing.T) {
	for name, extra := range map[string]string{
		"fits": "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.prefill_instances]\nvalues = [1, 2]\n",
		"a rule keeps it within": "[params.disaggregation]\nvalues = [\"none\", \"pd\"]\n[params.prefill_instances]\nvalues = [1, 4]\n" +
			"[[rules]]\nexpr = 'disaggregation != \"pd\" or prefill_instances * prefill_tp + 1 <= gpus'\n",
	} {
		if _, err := Parse(context.Background(), "x.toml", strings.Replace(gatedSrc, "%s", extra, 1), pdOptions()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
