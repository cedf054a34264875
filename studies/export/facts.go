package export

import (
	"strings"
	"time"
)

// facts is what deploying one engine needs beyond its serving command.
// One table for every engine, so it can move into the engine registry
// as a whole.
type facts struct {
	// repo is the official image without its tag; vTag tags it "v"+version
	// (vLLM and SGLang tag releases v0.15.1, v0.5.6; NGC and Ollama 1.2.1).
	repo string
	vTag bool
	port int
	// health answers 200 once the engine serves (vLLM, SGLang and
	// TensorRT-LLM /health; Ollama /api/version); "" probes the port.
	health string
	// cache is where the image keeps downloaded checkpoints.
	cache string
	// hfHome: the engine downloads from Hugging Face and reads HF_TOKEN.
	hfHome bool
	// bindEnv is the variable the engine binds from instead of flags.
	bindEnv string
	// load bounds the time from start to the first healthy answer:
	// download, weights, compilation and CUDA-graph capture of a large
	// checkpoint take tens of minutes.
	load time.Duration
}

const hfCache = "/root/.cache/huggingface"

func builtins() map[string]facts {
	return map[string]facts{
		"vllm":   {repo: "vllm/vllm-openai", vTag: true, port: 8000, health: "/health", cache: hfCache, hfHome: true, load: time.Hour},
		"sglang": {repo: "lmsysorg/sglang", vTag: true, port: 30000, health: "/health", cache: hfCache, hfHome: true, load: time.Hour},
		"trtllm": {repo: "nvcr.io/nvidia/tensorrt-llm/release", port: 8000, health: "/health", cache: hfCache, hfHome: true, load: time.Hour},
		"ollama": {repo: "ollama/ollama", port: 11434, health: "/api/version", cache: "/root/.ollama", bindEnv: "OLLAMA_HOST", load: 10 * time.Minute},
	}
}

// image is the engine's official image tagged with the pinned version,
// "latest" when none is pinned.
func (f facts) image(version string) string {
	switch {
	case version == "":
		return f.repo + ":latest"
	case f.vTag:
		return f.repo + ":v" + strings.TrimPrefix(version, "v")
	}
	return f.repo + ":" + version
}
