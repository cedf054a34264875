package engines

import (
	"slices"
	"testing"

	"github.com/servetune/servetune/space"
)

// llama is a target declaring one engine, as examples/llamacpp does.
var llama = space.Target{Declared: map[string]space.EngineDecl{"llama": {
	Command: []string{"llama-server"}, DefaultPort: 8080, Ready: space.ReadyDecl{Path: "/health"},
	VersionCommand: []string{"llama-server", "--version"},
}}}

// TestIdentity is what each adapter answers besides its flags: one table
// a newcomer can check against each engine's file.
func TestIdentity(t *testing.T) {
	cases := []struct {
		name, version string
		target        space.Target
		port          int
		health, image string
		device        Device
		program       string
		versionCmd    []string
	}{
		{VLLM, "0.15.1", space.Target{}, 8000, "/health", "vllm/vllm-openai:v0.15.1", GPU, "", []string{"vllm", "--version"}},
		{VLLM, "", space.Target{}, 8000, "/health", "vllm/vllm-openai:latest", GPU, "/opt/vllm", []string{"/opt/vllm", "--version"}},
		{SGLang, "0.5.6", space.Target{}, 30000, "/health", "lmsysorg/sglang:v0.5.6", GPU, "",
			[]string{"python3", "-c", "import sglang; print(sglang.__version__)"}},
		{TRTLLM, "1.3.0rc3", space.Target{}, 8000, "/health", "nvcr.io/nvidia/tensorrt-llm/release:1.3.0rc3", GPU, "/x/trtllm-serve",
			[]string{"python3", "-c", "import tensorrt_llm; print(tensorrt_llm.__version__)"}},
		{Ollama, "", space.Target{}, 11434, "/api/version", "ollama/ollama:latest", CPU, "", []string{"ollama", "--version"}},
		{"llama", "b1", llama, 8080, "/health", "", GPU, "", []string{"llama-server", "--version"}},
	}
	for _, c := range cases {
		e, ok := Lookup(c.name, c.target)
		if !ok {
			t.Fatalf("Lookup(%q) not found", c.name)
		}
		if got := e.DefaultPort(); got != c.port {
			t.Errorf("%s: DefaultPort = %d, want %d", c.name, got, c.port)
		}
		if got := e.Health(); got != c.health {
			t.Errorf("%s: Health = %q, want %q", c.name, got, c.health)
		}
		if got := e.Image(c.version); got != c.image {
			t.Errorf("%s: Image(%q) = %q, want %q", c.name, c.version, got, c.image)
		}
		if got := e.Device(); got != c.device {
			t.Errorf("%s: Device = %s, want %s", c.name, got, c.device)
		}
		if got := e.VersionCommand(c.program); !slices.Equal(got, c.versionCmd) {
			t.Errorf("%s: VersionCommand(%q) = %q, want %q", c.name, c.program, got, c.versionCmd)
		}
	}
}

// TestLookupOne: one lookup knows the built-ins everywhere and a target's
// declared engines only with that target (the bug of issue 24: export
// asked a lookup that knew built-ins only).
func TestLookupOne(t *testing.T) {
	if _, ok := Lookup("llama", space.Target{}); ok {
		t.Error("a declared engine is found without its target")
	}
	if e, ok := Lookup("llama", llama); !ok || e.Name() != "llama" {
		t.Errorf("Lookup(llama, target) = %v, %v", e, ok)
	}
	if e, ok := Lookup(VLLM, llama); !ok || e.Name() != VLLM {
		t.Errorf("Lookup(vllm, target) = %v, %v", e, ok)
	}
	if !slices.Equal(names(llama), []string{VLLM, SGLang, TRTLLM, Ollama, "llama"}) {
		t.Errorf("names = %q", names(llama))
	}
}

func TestGPUs(t *testing.T) {
	sglangDP := space.Config{"engine": "sglang", KnobTP: int64(8), KnobDP: int64(8), KnobEnableDPAttention: true}
	cases := []struct {
		name   string
		cfg    space.Config
		target space.Target
		want   int
	}{
		{"vllm tp×dp", space.Config{"engine": "vllm", KnobTP: int64(4), KnobDP: int64(2)}, space.Target{}, 8},
		{"sglang DP attention inside the TP group", sglangDP, space.Target{}, 8},
		{"sglang DP without attention", space.Config{"engine": "sglang", KnobTP: int64(2), KnobDP: int64(2)}, space.Target{}, 4},
		{"trtllm has no dp", space.Config{"engine": "trtllm", KnobTP: int64(4), KnobDP: int64(2)}, space.Target{}, 4},
		{"no parallelism knobs", space.Config{"engine": "vllm"}, space.Target{}, 1},
		{"gpus_per_trial overrides", sglangDP, space.Target{GPUsPerTrial: "tp * 2"}, 16},
		{"declared engine tp×dp", space.Config{"engine": "llama", KnobTP: int64(2), KnobDP: int64(3)}, llama, 6},
		{"unknown engine tp×dp", space.Config{"engine": "nope", KnobTP: int64(2)}, space.Target{}, 2},
		{"gpus_per_trial that does not apply", space.Config{"engine": "vllm", KnobTP: int64(4)}, space.Target{GPUsPerTrial: "tp * pp"}, 4},
	}
	for _, c := range cases {
		if got := GPUs(c.cfg, c.target); got != c.want {
			t.Errorf("%s: GPUs = %d, want %d", c.name, got, c.want)
		}
	}
}
