package engines

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

// Every engine shares what Go's flag package, cobra/pflag and argparse
// print on a flag they do not know, and a startup that ends with status 0:
// each is invalid_config with the line itself as the reason.
func TestGenericUsageErrorsAreInvalidConfigWithTheLine(t *testing.T) {
	cleanExit := Exit{Exited: true}
	cases := []struct {
		name string
		exit Exit
		tail []string
		want string // in the message
	}{
		{"cobra/pflag", cleanExit, []string{"Error: unknown flag: --host", "Usage:", "  vllm-sim [flags]"}, "unknown flag: --host"},
		{"pflag short", Exit{Exited: true, Code: 1}, []string{"unknown shorthand flag: 'x' in -x", "unknown short flag: -x"}, "unknown short flag: -x"},
		{"Go flag", Exit{Exited: true, Code: 2}, []string{"flag provided but not defined: -host", "Usage of sim:"}, "flag provided but not defined: -host"},
		{"argparse", Exit{Exited: true, Code: 2}, []string{"usage: server [-h]", "server: error: unrecognized arguments: --tp-size=8"}, "unrecognized arguments: --tp-size=8"},
		{"status 0, no known line", cleanExit, []string{"INFO starting", "model parameter is empty"}, "exited during startup with status 0: model parameter is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, e := range append(all(), newDeclared("my-declared", space.EngineDecl{})) {
				engine := e.Name()
				f := Classify(e, Starting, c.exit, c.tail)
				shown := f.Message + "\n" + strings.Join(f.Lines, "\n")
				if engine == "ollama" {
					// Ollama's own "Error: …" pattern speaks first; the line is kept.
					f.Message = shown
				}
				if f.Class != InvalidConfig || !strings.Contains(f.Message, c.want) {
					t.Errorf("%s: Classify = %s %q; want invalid_config mentioning %q", engine, f.Class, f.Message, c.want)
				}
			}
		})
	}
}

// A clean exit after ready is a crash, not a config error.
func TestCleanExitWhileServingIsACrash(t *testing.T) {
	f := classifyBuiltin(t, "vllm", Serving, Exit{Exited: true}, []string{"INFO: Shutting down"})
	if f.Class != CrashedDuringBenchmark {
		t.Errorf("Classify = %s, want crashed_during_benchmark", f.Class)
	}
}

// vLLM ≥ 0.10 runs the engine core in its own process and prefixes its
// output with "(EngineCore_DP0 pid=N) " (vllm/v1/engine/core_client.py /
// vllm/utils prefix_output of v0.11.0); a config error raised there must
// still classify as invalid_config, not unknown.
func TestVLLMEngineCorePrefixClassifies(t *testing.T) {
	died := Exit{Exited: true, Code: 1}
	for _, line := range []string{
		"(EngineCore_DP0 pid=2817) ValueError: Total number of attention heads (64) must be divisible by tensor parallel size (3).",
		"(EngineCore_0 pid=44) AssertionError",
		"(EngineCore pid=9) pydantic_core._pydantic_core.ValidationError: 1 validation error for VllmConfig",
	} {
		if f := classifyBuiltin(t, "vllm", Starting, died, []string{line}); f.Class != InvalidConfig {
			t.Errorf("%q: Classify = %s (%s), want invalid_config", line, f.Class, f.Message)
		}
	}
}
