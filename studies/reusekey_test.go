package studies

import (
	"testing"

	"github.com/servetune/servetune/space"
)

func TestRenderedKey(t *testing.T) {
	key := RenderedKey(space.Target{Engine: "sglang", Model: "zai-org/GLM-5.2-FP8", GPU: "H200", GPUs: 8})
	base := space.Config{"engine": "sglang", "tp": int64(8), "max_running": int64(256)}
	withDefault := base.Clone()
	withDefault["chunked_prefill"] = space.Default
	if key(base) != key(withDefault) {
		t.Errorf("a knob left at default must render the same command:\n%s\n%s", key(base), key(withDefault))
	}
	other := base.Clone()
	other["max_running"] = int64(512)
	if key(base) == key(other) {
		t.Error("different max_running rendered the same key")
	}
	bad := space.Config{"engine": "nope"}
	if key(bad) == key(space.Config{"engine": "nope2"}) {
		t.Error("configs that do not render must key on themselves")
	}
}

// The gpu knob renders no flag, yet the same command on another GPU type
// is another measurement: it must not reuse the first one's.
func TestRenderedKeyKeepsGPUType(t *testing.T) {
	key := RenderedKey(space.Target{Engine: "vllm", Model: "m", GPU: "H100", GPUs: 8})
	on := func(gpu any) space.Config {
		return space.Config{"engine": "vllm", "tp": int64(2), "gpu": gpu}
	}
	if key(on("H100")) == key(on("L40S")) {
		t.Errorf("one key for two GPU types: %s", key(on("H100")))
	}
	if a, b := key(on("H100")), key(on("H100")); a != b {
		t.Errorf("the key is not a function of the config: %s vs %s", a, b)
	}
	if plain := (space.Config{"engine": "vllm", "tp": int64(2)}); key(plain) != key(on(space.Default)) {
		t.Errorf("a gpu knob at default changed the key: %s vs %s", key(plain), key(on(space.Default)))
	}
}
