package engines

import (
	"reflect"
	"testing"

	"github.com/servetune/servetune/space"
)

// A render that pins no version must be the render for RenderedFor's
// release, or an export that pins its image to that release would run
// flags the image does not know.
func TestRenderedForIsTheLatestRender(t *testing.T) {
	for _, tc := range []struct {
		engine string
		cfg    space.Config
	}{
		{VLLM, space.Config{"tp": int64(2), "kv_cache_dtype": "fp8", "max_running": int64(128), "prefix_caching": true, "cuda_graph_max_bs": int64(64)}},
		{SGLang, space.Config{"tp": int64(2), "kv_cache_dtype": "fp8_e4m3", "cuda_graph_max_bs": int64(64)}},
		{TRTLLM, space.Config{"tp": int64(2)}},
		{Ollama, space.Config{}},
	} {
		tgt := space.Target{Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 2, Engine: tc.engine}
		if tc.engine == Ollama {
			tgt.Model, tgt.GPUs = "/models/tiny.gguf", 0
		}
		v := RenderedFor(tc.engine)
		if _, err := ParseVersion(v); err != nil || v == "" || v == "latest" {
			t.Fatalf("%s: RenderedFor = %q (%v)", tc.engine, v, err)
		}
		latest, err := Render(tc.cfg, tgt)
		if err != nil {
			t.Fatalf("%s: %v", tc.engine, err)
		}
		pinned := tgt
		pinned.Engines = map[string]space.EngineTarget{tc.engine: {Version: v}}
		at, err := Render(tc.cfg, pinned)
		if err != nil {
			t.Fatalf("%s at %s: %v", tc.engine, v, err)
		}
		if !reflect.DeepEqual(latest.Argv, at.Argv) || !reflect.DeepEqual(latest.Env, at.Env) {
			t.Errorf("%s: latest renders %q %v, %s renders %q %v", tc.engine, latest.Argv, latest.Env, v, at.Argv, at.Env)
		}
	}
	if v := RenderedFor("my-engine"); v != "" {
		t.Errorf("a declared engine has no release: %q", v)
	}
}
