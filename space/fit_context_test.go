package space

import (
	"context"
	"strings"
	"testing"
)

// TestMaxModelLenAboveTheModelsContext: a max_model_len the model cannot
// take (above its card's max_context) is refused wherever the space holds
// it, naming the key; within the context, and where the context is
// unknown, it loads.
func TestMaxModelLenAboveTheModelsContext(t *testing.T) {
	base := gatedSrc[:strings.Index(gatedSrc, "%s")]
	opt := testOptions()
	opt.ContextLimit = func(Target) int { return 32768 }
	cases := []struct{ name, extra, key string }{
		{"a value", "[params.max_model_len]\nvalues = [4096, 65536]\n", "params.max_model_len.values"},
		{"a range's high end", "[params.max_model_len]\nlow = 4096\nhigh = 65536\n", "params.max_model_len.high"},
		{"the baseline", "[params.tp]\nvalues = [1]\n[baseline]\nmax_model_len = 100000\n", "baseline.max_model_len"},
		{"an enqueued config", "[params.max_model_len]\nvalues = [4096, 8192]\n[[enqueue]]\nmax_model_len = 1000000\n", "enqueue[0].max_model_len"},
	}
	for _, c := range cases {
		refusedKey(t, c.name, base+c.extra, opt, c.key)
	}
	// (16384: the base runs the balanced profile, whose 9216-token
	// requests a shorter max_model_len refuses; TestMaxModelLenBelowTheRequests.)
	for name, o := range map[string]Options{"within": opt, "unknown": testOptions()} {
		src := base + "[params.max_model_len]\nvalues = [16384, 32768]\n"
		if name == "unknown" {
			src = base + "[params.max_model_len]\nvalues = [16384, 1000000]\n"
		}
		if _, err := Parse(context.Background(), "x.toml", src, o); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A random profile whose shortest request is longer than the model's
// context fails every request, so every trial: refused at its input_len
// (issue 48's fresh round: it ran a study to exit 3). One whose longest
// request alone is over (range_ratio) loads.
func TestProfileLongerThanTheModelsContext(t *testing.T) {
	opt := testOptions()
	opt.ContextLimit = func(Target) int { return 32768 }
	over := strings.Replace(freshBase, "input_len = 128", "input_len = 5000000", 1)
	refusedKey(t, "over", over, opt, "profiles.custom.p.input_len")
	edge := strings.Replace(freshBase, "input_len = 128", "input_len = 40000\nrange_ratio = 0.5", 1)
	if _, err := Parse(context.Background(), "x.toml", edge, opt); err != nil {
		t.Errorf("only the longest requests over: %v", err)
	}
}

// A max_model_len below a random profile's shortest request makes the
// engine (and the simulator) refuse every request, so every trial with it
// failed: refused wherever the space holds it (issue 48, fifth pass).
// -1, vLLM's "what fits", is left to the engine.
func TestMaxModelLenBelowTheRequests(t *testing.T) {
	base := gatedSrc[:strings.Index(gatedSrc, "%s")]
	for _, c := range []struct{ name, extra, key string }{
		{"a value", "[params.max_model_len]\nvalues = [4096, 16384]\n", "params.max_model_len.values"},
		{"a range's low end", "[params.max_model_len]\nlow = 2048\nhigh = 16384\n", "params.max_model_len.low"},
		{"the baseline", "[params.tp]\nvalues = [1]\n[baseline]\nmax_model_len = 1000\n", "baseline.max_model_len"},
	} {
		refusedKey(t, c.name, base+c.extra, testOptions(), c.key)
	}
	if _, err := Parse(context.Background(), "x.toml", base+"[params.max_model_len]\nvalues = [-1, 9216]\n", testOptions()); err != nil {
		t.Errorf("-1 and the shortest request's length: %v", err)
	}
}
