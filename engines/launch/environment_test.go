package launch

import (
	"strings"
	"testing"
)

func TestFirstVersion(t *testing.T) {
	for out, want := range map[string]string{
		"0.11.0\n": "0.11.0",
		"INFO 12-01 10:00:00 [__init__.py:216] Automatically detected platform cuda.\n0.11.0\n": "0.11.0",
		"0.5.3.post3": "0.5.3.post3",
		"1.2.0rc1":    "1.2.0rc1",
		"ollama version is 0.12.11\nWarning: client version is 0.12.11":             "0.12.11",
		"version: 8993 (a95a11e5)\nbuilt with cc (GCC) 13.2.0 for x86_64-linux-gnu": "8993",
		"gosim version 0.3.1": "0.3.1",
		"usage: vllm [-h]":    "",
		"":                    "",
		// A tool that rejects --version and logs the error with a time.
		"E1201 10:00:00.123456   41 root.go:42] unknown flag: --version":            "",
		"2026/12/01 10:00:00.5 unknown flag: --version\nUsage: vllm-sim [flags]":    "",
		"time=2026-12-01T10:00:00.123Z level=ERROR msg=\"unknown flag: --version\"": "",
		"listening on 127.0.0.1 version unknown":                                    "",
		"connecting to 10.0.0.1:8000 ... server version 1.4.2":                      "1.4.2",
	} {
		if got := firstVersion(out); got != want {
			t.Errorf("firstVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

// FuzzFirstVersion: a version is always a word of the output.
func FuzzFirstVersion(f *testing.F) {
	for _, s := range []string{"0.11.0", "version: 8993 (x)", "v1.2.0rc1", "a.b", "version 1.", "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		if v := firstVersion(out); v != "" && !strings.Contains(out, v) {
			t.Fatalf("firstVersion(%q) = %q, not in the output", out, v)
		}
	})
}

func TestParseGPUsAndCPU(t *testing.T) {
	name, n, driver := parseGPUs("NVIDIA H100 80GB HBM3, 550.54.15\nNVIDIA H100 80GB HBM3, 550.54.15\n")
	if name != "NVIDIA H100 80GB HBM3" || n != 2 || driver != "550.54.15" {
		t.Errorf("parseGPUs = %q %d %q", name, n, driver)
	}
	if _, n, _ := parseGPUs(""); n != 0 {
		t.Errorf("no nvidia-smi output: %d GPUs", n)
	}
	if got := cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 9654\nprocessor\t: 1\nmodel name\t: AMD EPYC 9654\n"); got != "2×AMD EPYC 9654" {
		t.Errorf("cpuModel = %q", got)
	}
	if got := cudaVersion("| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |"); got != "12.4" {
		t.Errorf("cudaVersion = %q", got)
	}
}

// The recorded command keeps what a user needs to rerun the trial and
// never a credential, set by the target or inherited.
func TestRanRedactsSecrets(t *testing.T) {
	c := ran([]string{"vllm", "serve", "m", "--api-key", "sk-inherited-1234"},
		map[string]string{"HF_TOKEN": "hf_secret", "VLLM_USE_V1": "1"},
		[]string{"PATH=/bin", "OPENAI_API_KEY=sk-inherited-1234"})
	got := c.Shell()
	want := "HF_TOKEN='[REDACTED]' VLLM_USE_V1=1 vllm serve m --api-key '[REDACTED]'"
	if got != want {
		t.Errorf("ran =\n %s\nwant\n %s", got, want)
	}
}

// FuzzParseGPUs: nvidia-smi output of any shape gives a count no larger
// than its lines, and a name exactly when there is a GPU.
func FuzzParseGPUs(f *testing.F) {
	for _, s := range []string{"NVIDIA H100 80GB HBM3, 550.54.15\n", "a, b\nc, d\n", "", ",\n", "x,y,z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, csv string) {
		name, n, _ := parseGPUs(csv)
		if n > strings.Count(csv, "\n")+1 || (n > 0) != (name != "") {
			t.Fatalf("parseGPUs(%q) = %q, %d", csv, name, n)
		}
		_ = cpuModel(csv)
	})
}
