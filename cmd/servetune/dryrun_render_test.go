package main

import (
	"fmt"
	"os"
	"path/filepath"
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

const cpuEngineSpace = `
[study]
name = "cpu"
n_trials = 4
[target]
runner = "process"
model = "./model.gguf"
engine = "cpu-server"
[engines.cpu-server]
command = ["cpu-server"]
model = "--model"
port = "--port"
device = "%s"
[engines.cpu-server.knobs]
max_running = { flag = "--parallel" }
[engines.cpu-server.ready]
path = "/health"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[params.max_running]
values = [1, 2, 4]
`

// A declared CPU-only engine passes --dry-run on a node without
// nvidia-smi (issue 50: "nvidia-smi is not installed … the space needs
// 1"); declared without device, it still needs its GPU.
func TestDryRunOfACPUOnlyDeclaredEngine(t *testing.T) {
	for _, tc := range []struct {
		device string
		code   int
		says   string
	}{{"cpu", 0, "Every check passed"}, {"gpu", exitCheck, "nvidia-smi is not installed"}} {
		dir, bin := t.TempDir(), t.TempDir()
		if err := os.WriteFile(filepath.Join(bin, "cpu-server"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "model.gguf"), []byte("gguf"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv("PATH", bin) // no nvidia-smi
		for _, k := range []string{"CUDA_VISIBLE_DEVICES", "SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "NVIDIA_VISIBLE_DEVICES", storageEnv} {
			t.Setenv(k, "")
		}
		space := writeSpaceIn(t, dir, fmt.Sprintf(cpuEngineSpace, tc.device))
		code, out, errText := runCLI(t, dir, "--log-level", "warn", "run", "--dry-run", space)
		if code != tc.code || !strings.Contains(out, tc.says) {
			t.Errorf("device %s: exit %d, want %d saying %q\n%s%s", tc.device, code, tc.code, tc.says, out, errText)
		}
		if tc.device == "cpu" && strings.Contains(out, "gpus ") {
			t.Errorf("a CPU-only engine's dry run checks GPUs:\n%s", out)
		}
	}
}
