package simserve

import (
	"net/http"
	"time"

	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// imitation is how sim serve passes for one engine from outside: the
// arguments it takes beyond the knob table, the role flags of a
// disaggregated server, its log lines and its API's quirks. Each engine's
// file (imitate_vllm.go, imitate_sglang.go, imitate_trtllm.go) implements
// it; nothing outside those files asks which engine it imitates.
type imitation interface {
	name() string
	// flags adds the engine's arguments outside the knob table (its role
	// flags included) to fs.
	flags(fs map[string]extraFlag)
	// roleFlag is the flag naming a disaggregated server's role ("" when
	// the engine serves no PD); role reads its value, asked being --role
	// (vLLM's kv_both leaves the role to it).
	roleFlag() string
	role(value, asked string) (string, error)

	// logPrefix is what the engine's logger puts before a line.
	logPrefix(now time.Time) string
	// banner and ready are the engine's start and ready lines.
	banner(l *engineLog, o Options, cfg space.Config, served string)
	ready(l *engineLog, live *sim.Live, url string, startup time.Duration)
	// prog is the program name argparse and click print; usage its usage
	// lines; argError and unrecognized its parser's refusals.
	prog() string
	usage() []string
	argError(msg string) []string
	unrecognized(extra []string) []string

	// unavailable answers /health before the engine is ready.
	unavailable(w http.ResponseWriter)
	// owner is /v1/models' owned_by.
	owner() string
	// completionTokens is a /v1/completions request's default max_tokens.
	completionTokens() int
	// usageByDefault: stream_options present without include_usage
	// streams usage (TRT-LLM).
	usageByDefault() bool
	// chunks renders the engine's SSE shapes (sse.go).
	chunks
}

// chunks are the engine-specific parts of a stream (engines.md §6).
type chunks interface {
	// finishOnLast: the last token's chunk carries finish_reason (vLLM,
	// TRT-LLM); otherwise a finish chunk follows (SGLang: finishChunk).
	finishOnLast() bool
	// textChunk is a /v1/completions token chunk, finish the reason JSON.
	textChunk(c *chunker, text, finish string) []byte
	// finishChunk is the chunk after the last token ("" for none).
	finishChunk(c *chunker) []byte
	// usageObject is the usage chunk's object.
	usageObject(c *chunker) string
}

// routerImitation is an engine whose disaggregation router sim serve
// imitates (its routes; its flags are parseRouterArgs').
type routerImitation interface {
	routerRoutes(rt *router, mux *http.ServeMux)
}

// imitations are the engines sim serve imitates, in engines.Names'
// order.
func imitations() []imitation {
	return []imitation{vllmImitation{}, sglangImitation{}, trtllmImitation{}}
}

// imitationOf is the named engine's imitation.
func imitationOf(engine string) (imitation, bool) {
	for _, im := range imitations() {
		if im.name() == engine {
			return im, true
		}
	}
	return nil, false
}

// roleFlagAt reports whether name is any imitated engine's role flag
// (the flag takes a value).
func roleFlagAt(name string) bool {
	for _, im := range imitations() {
		if f := im.roleFlag(); f != "" && f == name {
			return true
		}
	}
	return false
}
