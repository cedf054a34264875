package export

import (
	"strings"
	"testing"

	"github.com/servetune/servetune/space"
)

func dockerLine(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "docker run") {
			return l
		}
	}
	t.Fatalf("no docker run line:\n%s", out)
	return ""
}

func TestDocker(t *testing.T) {
	t.Setenv("HF_TOKEN", "hf_secretvalue")
	for _, tc := range []struct {
		name     string
		sp       *space.Space
		cfg      space.Config
		opt      Options
		has, not []string
	}{
		{"vllm tp=2 of 8", study("vllm", 8, nil), space.Config{"tp": int64(2)}, Options{},
			[]string{`--gpus '"device=0,1"'`, "--ipc=host", "-p 8000:8000", "-v $HOME/.cache/huggingface:/root/.cache/huggingface", "-e HF_TOKEN ",
				"--entrypoint vllm vllm/vllm-openai:v0.15.1 serve Qwen/Qwen3-8B", "--host=0.0.0.0 --port=8000"},
			[]string{"--gpus all", "hf_secretvalue"}},
		{"trtllm tp=8 with its file", study("trtllm", 8, nil), space.Config{"tp": int64(8), "kv_cache_dtype": "fp8"}, Options{},
			[]string{`--gpus '"device=0,1,2,3,4,5,6,7"'`, "-w /servetune", "nvcr.io/nvidia/tensorrt-llm/release:1.2.1"}, nil},
		{"ollama on CPU", &space.Space{Study: space.Study{Name: "o"}, Target: space.Target{Engine: "ollama", Model: "/m/q.gguf"}}, space.Config{}, Options{},
			[]string{"-e OLLAMA_HOST=0.0.0.0:11434", "-p 11434:11434", "-v $HOME/.cache/ollama:/root/.ollama"}, []string{"--gpus", "HF_TOKEN"}},
		{"declared", study("llama-server", 1, llamaServer()), space.Config{"max_running": int64(4)}, Options{Image: "ghcr.io/ggml-org/llama.cpp:server-cuda"},
			[]string{`--gpus '"device=0"'`, "-p 8080:8080", "--entrypoint llama-server ghcr.io/ggml-org/llama.cpp:server-cuda --model Qwen/Qwen3-8B --parallel 4 --host 0.0.0.0 --port 8080"},
			[]string{":latest"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.sp, complete(tc.cfg), tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			out := Docker(p)
			line := dockerLine(t, out)
			for _, w := range tc.has {
				if !strings.Contains(line, w) {
					t.Errorf("docker line lacks %q:\n%s", w, line)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("docker snippet holds %q:\n%s", w, out)
				}
			}
			for f := range p.Files {
				if !strings.Contains(out, "cat > "+p.Name+"/"+f) {
					t.Errorf("file %s is not written:\n%s", f, out)
				}
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"--tp=8": "--tp=8", "a b": "'a b'", "it's": `'it'\''s'`, "": "''", "$X": "'$X'", `"device=0"`: `'"device=0"'`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
