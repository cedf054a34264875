package engines

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines/gguf"
	"github.com/servetune/servetune/space"
)

func ollamaTarget(model string) space.Target {
	return space.Target{Model: model, Engine: "ollama", Engines: map[string]space.EngineTarget{"ollama": {Version: "0.5.7"}}}
}

func TestOllamaRender(t *testing.T) {
	cfg := space.Config{KnobMaxRunning: int64(4), KnobFlashAttention: true, KnobKVCacheDType: "q8_0",
		KnobMaxQueue: int64(64), KnobNumCtx: int64(2048), KnobNumBatch: int64(256), KnobNumThread: int64(2)}
	c, err := Render(cfg, ollamaTarget("/models/Tiny Llama.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ollama", "serve"}; !reflect.DeepEqual(c.Argv, want) || c.Program != 2 {
		t.Errorf("argv = %q (program %d); want %q", c.Argv, c.Program, want)
	}
	wantEnv := map[string]string{"OLLAMA_NUM_PARALLEL": "4", "OLLAMA_FLASH_ATTENTION": "1",
		"OLLAMA_KV_CACHE_TYPE": "q8_0", "OLLAMA_MAX_QUEUE": "64"}
	if !reflect.DeepEqual(c.Env, wantEnv) {
		t.Errorf("env = %v; want %v", c.Env, wantEnv)
	}
	mf := c.Files["Modelfile"]
	for _, line := range []string{"FROM /models/Tiny Llama.gguf\n", "PARAMETER num_ctx 2048\n", "PARAMETER num_batch 256\n", "PARAMETER num_thread 2\n"} {
		if !strings.Contains(mf, line) {
			t.Errorf("Modelfile lacks %q:\n%s", line, mf)
		}
	}
	if want := [][]string{{"ollama", "create", "tiny-llama", "-f", "Modelfile"}}; !reflect.DeepEqual(c.Setup, want) {
		t.Errorf("setup = %q; want %q", c.Setup, want)
	}
	if _, name := (ollama{}).Listen("127.0.0.1", 1, "/models/Tiny Llama.gguf", "/models/Tiny Llama.gguf"); name != "tiny-llama" {
		t.Errorf("served name = %q; want the created model's name", name)
	}

	// "default" and an empty config pass nothing: Ollama's own defaults.
	c, err = Render(space.Config{KnobNumThread: "default", KnobMaxRunning: "default"}, ollamaTarget("m.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("m.gguf")
	if len(c.Env) != 0 || strings.Contains(c.Files["Modelfile"], "PARAMETER") || !strings.Contains(c.Files["Modelfile"], "FROM "+abs+"\n") {
		t.Errorf("defaults rendered env %v, Modelfile:\n%s", c.Env, c.Files["Modelfile"])
	}
}

func TestOllamaRenderErrors(t *testing.T) {
	for _, c := range []struct {
		cfg   space.Config
		model string
		want  string
	}{
		{space.Config{KnobKVCacheDType: "q4_0"}, "m.gguf", "only with flash_attention = true"},
		{space.Config{KnobKVCacheDType: "q4_0", KnobFlashAttention: false}, "m.gguf", "only with flash_attention = true"},
		{space.Config{KnobKVCacheDType: "fp8_e4m3", KnobFlashAttention: true}, "m.gguf", `ollama does not accept "fp8_e4m3"`},
		{space.Config{KnobMaxRunning: int64(0)}, "m.gguf", "OLLAMA_NUM_PARALLEL must be >= 1"},
		{space.Config{KnobNumThread: int64(-2)}, "m.gguf", "PARAMETER num_thread must be >= 1"},
		{space.Config{KnobTP: int64(2)}, "m.gguf", `ollama does not support knob "tp"`},
		{space.Config{}, "Qwen/Qwen3-8B", "must be a local .gguf file"},
	} {
		_, err := Render(c.cfg, ollamaTarget(c.model))
		f, ok := AsFailure(err)
		if !ok || f.Class != InvalidConfig || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Render(%s, %s) = %v; want invalid_config containing %q", c.cfg.Summary(), c.model, err, c.want)
		}
	}
	// f16 needs no flash attention; "auto" is Ollama's default and sets nothing.
	for _, v := range []string{"f16", "auto"} {
		c, err := Render(space.Config{KnobKVCacheDType: v}, ollamaTarget("m.gguf"))
		if err != nil {
			t.Errorf("kv_cache_dtype=%s: %v", v, err)
		}
		if got := c.Env["OLLAMA_KV_CACHE_TYPE"]; (v == "auto") != (got == "") {
			t.Errorf("kv_cache_dtype=%s rendered OLLAMA_KV_CACHE_TYPE=%q", v, got)
		}
	}
}

// TestOllamaKeySeesModelfile: two configs that differ only in a Modelfile
// PARAMETER render the same argv and env, so a warm server may be reused
// only if the key covers the generated files.
func TestOllamaKeySeesModelfile(t *testing.T) {
	a, _ := Render(space.Config{KnobNumThread: int64(1)}, ollamaTarget("m.gguf"))
	b, _ := Render(space.Config{KnobNumThread: int64(2)}, ollamaTarget("m.gguf"))
	if a.Shell() != b.Shell() {
		t.Fatalf("shell lines differ: the test premise changed")
	}
	if a.Key() == b.Key() {
		t.Error("Key ignores the Modelfile: a server with num_thread 1 would be reused for num_thread 2")
	}
}

func TestOllamaServeEnv(t *testing.T) {
	env := (ollama{}).ServeEnv("127.0.0.1", 4242, "rel/trial-3")
	if env["OLLAMA_HOST"] != "127.0.0.1:4242" {
		t.Errorf("OLLAMA_HOST = %q", env["OLLAMA_HOST"])
	}
	if m := env["OLLAMA_MODELS"]; !filepath.IsAbs(m) || !strings.HasSuffix(m, filepath.Join("rel", "trial-3", "ollama-models")) {
		t.Errorf("OLLAMA_MODELS = %q; want an absolute path inside the trial directory", m)
	}
}

func TestOllamaCheckModel(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tiny.gguf")
	f, err := os.Create(good)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gguf.LlamaConfig{Dim: 16, Layers: 1, FFN: 16, Heads: 2, Context: 64, Seed: 1}
	if err := gguf.WriteTinyLlama(f, cfg); err != nil {
		t.Fatal(err)
	}
	f.Close()
	bad := filepath.Join(dir, "bad.gguf")
	os.WriteFile(bad, []byte("PK\x03\x04 not a model"), 0o644)
	if err := (ollama{}).Check(good); err != nil {
		t.Errorf("check(valid GGUF) = %v", err)
	}
	for _, p := range []string{bad, filepath.Join(dir, "missing.gguf")} {
		if f, ok := AsFailure((ollama{}).Check(p)); !ok || f.Class != InvalidConfig {
			t.Errorf("check(%s) = %v; want invalid_config", filepath.Base(p), f)
		}
	}
	if !errors.Is(func() error { _, err := gguf.Read(strings.NewReader("GGML")); return err }(), gguf.ErrNotGGUF) {
		t.Error("a non-GGUF magic is not ErrNotGGUF")
	}
}

// TestOllamaClassify uses Ollama v0.5.7's and llama.cpp's own messages.
func TestOllamaClassify(t *testing.T) {
	for _, c := range []struct {
		name string
		tail []string
		want Class
	}{
		{"system memory", []string{
			`time=2026-11-29T13:07:18.902Z level=WARN source=server.go:136 msg="model request too large for system" requested="31.2 GiB" available=24412864512 total="23.5 GiB" free="22.7 GiB" swap="0 B"`,
			"Error: loading model tiny: model requires more system memory (31.2 GiB) than is available (22.7 GiB)",
		}, OOM},
		{"buffer", []string{"ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 34359738400",
			"llama_new_context_with_model: failed to allocate compute buffers"}, OOM},
		{"bad parameter", []string{"[servetune: setup: ollama create tiny -f Modelfile]", "Error: invalid int value [many]"}, InvalidConfig},
		{"not gguf", []string{"gathering model components", "Error: invalid file magic"}, InvalidConfig},
		{"load error", []string{"llama_model_load: error loading model: check_tensor_dims: tensor 'output.weight' has wrong shape",
			"Error: loading model tiny: llama runner process has terminated: error loading model: check_tensor_dims"}, InvalidConfig},
		{"port", []string{"Error: listen tcp 127.0.0.1:11434: bind: address already in use"}, PortConflict},
	} {
		f := classifyBuiltin(t, "ollama", Starting, Exit{Exited: true, Code: 1}, c.tail)
		if f.Class != c.want || len(f.Lines) == 0 {
			t.Errorf("%s: Classify = %s (%s, lines %q); want %s", c.name, f.Class, f.Message, f.Lines, c.want)
		}
	}
}
