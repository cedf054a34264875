package benchtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Flavor is which engine's streaming format to imitate.
type Flavor string

const (
	// VLLM: chunks carry "usage": null; the usage chunk has "choices": [].
	VLLM Flavor = "vllm"
	// SGLang: like vLLM, but the finish chunk has empty text and a
	// matched_stop field.
	SGLang Flavor = "sglang"
	// TRTLLM: the usage chunk is a chat.completion.chunk even on
	// /v1/completions.
	TRTLLM Flavor = "trtllm"
	// LlamaCpp: usage (and timings) ride on a final chunk that still has a
	// choice with empty text and a finish_reason.
	LlamaCpp Flavor = "llamacpp"
	// Ollama: text prompts only (token-id prompts get HTTP 400), ignore_eos
	// is ignored.
	Ollama Flavor = "ollama"
)

// Fault makes a request fail in a particular way.
type Fault struct {
	// Status, when non-zero, answers with this HTTP status and an
	// OpenAI-style error body instead of streaming.
	Status int
	// After is the number of content chunks sent before the fault below
	// strikes.
	After int
	// Reset aborts the connection mid-stream.
	Reset bool
	// Truncate ends the response cleanly but without [DONE].
	Truncate bool
	// Malformed sends a line that is not JSON.
	Malformed bool
	// ErrorEvent streams an error object, then [DONE].
	ErrorEvent bool
	// Hang stops sending and holds the connection open until the client goes.
	Hang bool
	// HangBeforeHeaders holds the request before any response is written.
	HangBeforeHeaders bool
	// NotStream answers 200 with a JSON body instead of an event stream.
	NotStream bool
}

// Config scripts the server.
type Config struct {
	Flavor Flavor // default VLLM
	// TTFT is the delay from receiving a request to its first content
	// chunk; ITL the delay between content chunks.
	TTFT, ITL time.Duration
	// TokensPerChunk > 1 sends several tokens per chunk, as speculative
	// decoding does; usage still counts tokens.
	TokensPerChunk int
	// RoleChunkDelay: on chat, the assistant role chunk (no content) is sent
	// right away and the content starts TTFT later, so a client that stamps
	// TTFT at the role chunk is caught.
	RoleChunkDelay bool
	// KeepAlive sends an SSE comment line before every chunk.
	KeepAlive bool
	// NoUsage never sends usage, even when asked.
	NoUsage bool
	// StopAfter > 0 ends generation after this many tokens unless the
	// request sets ignore_eos (ignored by Ollama).
	StopAfter int
	// PromptOverhead is added to the prompt token count (a chat template).
	PromptOverhead int
	// DoneGap holds the response open this long after [DONE] is flushed,
	// before the end of the body, so a client that stops reading at
	// [DONE] is caught closing (not reusing) the connection.
	DoneGap time.Duration
	// Stamp records the send time of every content chunk (Stamps).
	Stamp bool
	// Fault applies to every request; FaultFor, when set, picks per request
	// (by the client's request index) instead.
	Fault    Fault
	FaultFor func(index int) Fault
}

// Server is a running fake engine.
type Server struct {
	*httptest.Server
	cfg Config

	mu      sync.Mutex
	stamps  map[int][]time.Time
	bodies  [][]byte
	headers []http.Header
	seq     int
	conns   int
}

// NewServer starts a server on 127.0.0.1.
func NewServer(cfg Config) *Server {
	if cfg.Flavor == "" {
		cfg.Flavor = VLLM
	}
	if cfg.TokensPerChunk <= 0 {
		cfg.TokensPerChunk = 1
	}
	s := &Server{cfg: cfg, stamps: map[int][]time.Time{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, false) })
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, true) })
	s.Server = httptest.NewUnstartedServer(mux)
	s.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
		}
	}
	s.Start()
	return s
}

// Conns is how many connections clients have opened, so a test can see
// whether they were reused.
func (s *Server) Conns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// Stamps returns the send times of the content chunks of the request with
// that client index (header X-Servetune-Request).
func (s *Server) Stamps(index int) []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.stamps[index]...)
}

// Requests returns the bodies received, in arrival order.
func (s *Server) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.bodies...)
}

// Headers returns the request headers received, in arrival order.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.headers...)
}

type request struct {
	Model     string                     `json:"model"`
	Prompt    json.RawMessage            `json:"prompt"`
	Messages  []struct{ Content string } `json:"messages"`
	MaxTokens int                        `json:"max_tokens"`
	IgnoreEOS bool                       `json:"ignore_eos"`
	Stream    bool                       `json:"stream"`
	Options   *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, chat bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.headers = append(s.headers, r.Header.Clone())
	idx, err := strconv.Atoi(r.Header.Get("X-Servetune-Request"))
	if err != nil {
		idx = s.seq
	}
	s.seq++
	s.mu.Unlock()
	received := time.Now()

	fault := s.cfg.Fault
	if s.cfg.FaultFor != nil {
		fault = s.cfg.FaultFor(idx)
	}
	if fault.HangBeforeHeaders {
		<-r.Context().Done()
		return
	}
	if fault.Status != 0 {
		writeError(w, fault.Status, "injected failure")
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	prompt, ok := s.promptTokens(req, chat)
	if !ok {
		writeError(w, http.StatusBadRequest, "prompt must be a string")
		return
	}
	if fault.NotStream || !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"text_completion","choices":[{"text":"no stream"}]}`)
		return
	}
	n := req.MaxTokens
	if s.cfg.StopAfter > 0 && (!req.IgnoreEOS || s.cfg.Flavor == Ollama) {
		n = min(n, s.cfg.StopAfter)
	}
	st := stream{s: s, w: w, rc: http.NewResponseController(w), chat: chat, model: req.Model, idx: idx,
		usage: req.Options != nil && req.Options.IncludeUsage && !s.cfg.NoUsage}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	st.run(r, received, prompt, n, fault)
}

func (s *Server) promptTokens(req request, chat bool) (int, bool) {
	if chat {
		n := 0
		for _, m := range req.Messages {
			n += len(strings.Fields(m.Content))
		}
		return n + s.cfg.PromptOverhead, true
	}
	p := bytes.TrimSpace(req.Prompt)
	if len(p) > 0 && p[0] == '[' {
		if s.cfg.Flavor == Ollama {
			return 0, false
		}
		if bytes.Equal(p, []byte("[]")) {
			return s.cfg.PromptOverhead, true
		}
		return bytes.Count(p, []byte(",")) + 1 + s.cfg.PromptOverhead, true
	}
	var text string
	if json.Unmarshal(p, &text) != nil {
		return 0, false
	}
	return len(strings.Fields(text)) + s.cfg.PromptOverhead, true
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"object":"error","message":%q,"type":"BadRequestError","code":%d}`, msg, status)
}
