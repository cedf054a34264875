package engines_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/enginetest"
	"github.com/servetune/servetune/space"
)

// The shipped llama-server declaration renders llama.cpp's own spellings
// (common/arg.cpp, b8993): the model as --model, booleans present or
// absent, and nothing for "default".
func TestDeclaredLlamaServerRendersItsFlags(t *testing.T) {
	abs, _ := filepath.Abs("../examples/engines/llama-server.toml")
	tg := enginetest.DeclaredTarget(t, "llama-server", "include = \""+abs+"\"\n", "")
	cfg := space.Config{"max_running": int64(8), "flash_attn": "on", "cont_batching": false, "kv_unified": true, "ctx_size": space.Default}
	cmd, err := engines.Render(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	want := "llama-server --model /models/tiny.gguf --no-cont-batching --flash-attn on --kv-unified --parallel 8" // knobs in name order
	if got := cmd.Shell(); got != want {
		t.Errorf("command:\n got %s\nwant %s", got, want)
	}
	if _, err := engines.Render(space.Config{"tp": int64(2)}, tg); err == nil || !strings.Contains(err.Error(), `does not support knob "tp"`) {
		t.Errorf("an unmapped knob: %v", err)
	}
}

// The shipped vLLM-compatible simulator declaration passes the model as
// --model and no host.
func TestDeclaredVLLMSimRendersItsFlags(t *testing.T) {
	abs, _ := filepath.Abs("../examples/engines/vllm-sim.toml")
	tg := enginetest.DeclaredTarget(t, "vllm-sim", "include = \""+abs+"\"\n", "")
	cmd, err := engines.Render(space.Config{"max_running": int64(4)}, tg)
	if err != nil {
		t.Fatal(err)
	}
	if got := cmd.Shell(); got != "vllm-sim --model /models/tiny.gguf --max-num-seqs 4" {
		t.Errorf("command %s", got)
	}
}

// Knobs mapped to variables, JSON values and "equals" style render as
// declared; a boolean variable carries true/false.
func TestDeclaredEngineEnvJSONAndEqualsStyle(t *testing.T) {
	tg := enginetest.DeclaredTarget(t, "x", "", `
[engines.x]
command = ["x"]
model = "env:MODEL"
port = "--port"
flag_style = "equals"
[engines.x.knobs]
max_running = { flag = "--slots" }
threads = { env = "X_THREADS" }
fast = { env = "X_FAST" }
extra = { flag = "--extra", json = true }
[engines.x.ready]
log = "listening"
`)
	cfg := space.Config{"max_running": int64(4), "threads": int64(8), "fast": true, "extra": "a b"}
	cmd, err := engines.Render(cfg, tg)
	if err != nil {
		t.Fatal(err)
	}
	if got := cmd.Shell(); got != `MODEL=/models/tiny.gguf X_FAST=true X_THREADS=8 x --extra='"a b"' --slots=4` {
		t.Errorf("command %s", got)
	}
}
