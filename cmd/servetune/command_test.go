package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const commandSpace = `
[study]
name = "cmd"
[target]
model = "zai-org/GLM-5.2-FP8"
gpu = "H200"
gpus = 8
[[objectives]]
metric = "total_tps"
direction = "maximize"
[params.engine]
values = ["vllm", "sglang", "trtllm"]
[params.tp]
values = [8]
[params.dp]
values = [1, 8]
when = 'engine != "trtllm"'
[params.mem_fraction]
low = 0.7
high = 0.95
`

func writeSpace(t *testing.T) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, "space.toml")
	if err := os.WriteFile(path, []byte(commandSpace), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

func TestCommandPrintsTheSeedCommand(t *testing.T) {
	dir, path := writeSpace(t)
	code, out, errText := runCLI(t, dir, "command", path, "--pretty", "--set", "engine=sglang", "--set", "tp=8", "--set", "dp=8",
		"--set", "enable_dp_attention=true", "--set", "mem_fraction=0.85", "--set", "moe_a2a_backend=deepep",
		"--set=max_running=256", "--set", "kv_cache_dtype=fp8_e4m3")
	want := `python3 -m sglang.launch_server \
    --model-path zai-org/GLM-5.2-FP8 \
    --tp-size=8 \
    --dp-size=8 \
    --enable-dp-attention \
    --mem-fraction-static=0.85 \
    --moe-a2a-backend=deepep \
    --max-running-requests=256 \
    --kv-cache-dtype=fp8_e4m3
`
	if code != 0 || out != want {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s\nwant:\n%s", code, out, errText, want)
	}
}

func TestCommandPrintsTRTLLMYAML(t *testing.T) {
	dir, path := writeSpace(t)
	code, out, errText := runCLI(t, dir, "command", path, "--set", "engine=trtllm", "--set", "tp=8", "--set", "enable_dp_attention=true", "--set", "kv_cache_dtype=fp8")
	want := "trtllm-serve zai-org/GLM-5.2-FP8 --tp_size=8 --extra_llm_api_options=extra_llm_api_options.yaml\n\n" +
		"# extra_llm_api_options.yaml\nenable_attention_dp: true\nkv_cache_config:\n  dtype: fp8\n"
	if code != 0 || out != want {
		t.Fatalf("exit %d, stdout:\n%s\nstderr: %s", code, out, errText)
	}
}

func TestCommandRejectsWhatTheEngineCannotTake(t *testing.T) {
	dir, path := writeSpace(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "engine=vllm", "--set", "enable_dp_attention=true"}, `vllm does not support knob "enable_dp_attention"`},
		{[]string{"--set", "engine=trtllm", "--set", "dp=8"}, `trtllm does not support knob "dp"`},
		{[]string{"--set", "tp"}, "want knob=value"},
		{[]string{"--bogus"}, "unknown flag --bogus"},
	} {
		code, out, errText := runCLI(t, dir, append([]string{"command", path}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errText, c.want) {
			t.Errorf("command %v: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.args, code, out, errText, c.want)
		}
	}
}

func TestCommandRefusesImpossibleValues(t *testing.T) {
	dir, path := writeSpace(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "mem_fraction=nan"}, "--set mem_fraction: NaN is not a finite number"},
		{[]string{"--set", "mem_fraction=1.5"}, "mem_fraction must be a fraction in (0, 1], got 1.5"},
		{[]string{"--set", "tp=-8"}, "--set tp: tp must be an integer >= 1, got -8"},
		{[]string{"--set", "max_running=0"}, "max_running must be an integer >= 1, got 0"}, // not a knob of this space
		{[]string{"--set", "engine=vllm", "--set", "dp=inf"}, "dp: +Inf is not a finite number"},
	} {
		code, out, errText := runCLI(t, dir, append([]string{"command", path}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errText, c.want) {
			t.Errorf("command %v: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.args, code, out, errText, c.want)
		}
	}
}

func TestCommandWarnsOutsideTheSpace(t *testing.T) {
	dir, path := writeSpace(t)
	code, out, errText := runCLI(t, dir, "command", path, "--set", "engine=vllm", "--set", "tp=8", "--set", "mem_fraction=0.97")
	if code != 0 || !strings.Contains(out, "--gpu-memory-utilization=0.97") {
		t.Fatalf("exit %d, stdout %q, stderr %q: want the command rendered", code, out, errText)
	}
	want := "warning: mem_fraction: 0.97 is outside the knob's domain 0.7..0.95 of " + path
	if !strings.Contains(errText, want) {
		t.Errorf("stderr %q lacks %q", errText, want)
	}
	_, _, errText = runCLI(t, dir, "command", path, "--set", "engine=vllm", "--set", "tp=8", "--set", "mem_fraction=0.9")
	if strings.Contains(errText, "warning") {
		t.Errorf("a value inside the space warned: %q", errText)
	}
}
