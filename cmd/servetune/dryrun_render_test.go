package main

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// The dry run's first trials show the program the process runner
// launches: the target's override of the engine's program, not `vllm
// serve` (issue 50 item 6); reports keep the canonical command.
func TestDryRunShowsTheOverriddenProgram(t *testing.T) {
	sp := &space.Space{Target: space.Target{Runner: "process", Engine: "vllm", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 8,
		Engines: map[string]space.EngineTarget{"vllm": {Command: []string{"/opt/venv/bin/python", "-m", "vllm.entrypoints.openai.api_server"}}}}}
	cfg := space.Config{"tp": int64(2)}
	launched, err := renderAs(sp, true)(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := "/opt/venv/bin/python -m vllm.entrypoints.openai.api_server Qwen/Qwen3-8B --tensor-parallel-size=2"; launched != want {
		t.Errorf("launched %q, want %q", launched, want)
	}
	canonical, err := renderCommand(sp)(cfg)
	if err != nil || !strings.HasPrefix(canonical, "vllm serve Qwen/Qwen3-8B") {
		t.Errorf("canonical %q (%v), want vllm serve …", canonical, err)
	}
}
