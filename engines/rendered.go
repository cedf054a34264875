package engines

// RenderedFor is the release whose spellings a render at Latest (a
// target that pins no version) uses: the newest release the adapter's
// version gates name, or for Ollama the release its flags were read
// from. An export pins its image to it, so the command runs on the image
// it was written for rather than on whatever ":latest" is on the day it
// deploys. "" for an engine with no such release (a declared engine).
func RenderedFor(engine string) string {
	switch engine {
	case VLLM:
		return vllm018.String()
	case SGLang:
		return sglang0514.String()
	case TRTLLM:
		return trtllm13.String()
	case Ollama:
		return "0.5.7" // ollama.go: envconfig/config.go of v0.5.7
	}
	return ""
}
