package simserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
)

// Request defaults when the client sets no max_tokens: vLLM's and SGLang's
// completions default is 16; elsewhere the engine would run to EOS, which
// the simulated model never emits, so it stops at defaultChatTokens.
const (
	defaultCompletionTokens = 16
	defaultChatTokens       = 256
)

// server is the OpenAI front end. live is nil until the engine is ready.
type server struct {
	im         imitation
	served     string
	checkpoint string
	live       atomic.Pointer[sim.Live]
	seq        atomic.Int64
	// role is "prefill" or "decode" in a disaggregated deployment
	// (role.go), speed the simulated time's.
	role  string
	speed float64
	// transfer is a decode server's KV transfer time per request
	// (transfer.go); nil: the stand-in.
	transfer func(tokens int) time.Duration

	// last is the previous prompt's token hashes: the shared leading run
	// with it is what a prefix cache would hold.
	mu   sync.Mutex
	last []uint64
}

func (s *server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", s.health)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, false) })
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.complete(w, r, true) })
	return mux
}

func (s *server) health(w http.ResponseWriter, _ *http.Request) {
	if s.live.Load() == nil {
		s.im.unavailable(w)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *server) models(w http.ResponseWriter, _ *http.Request) {
	live := s.live.Load()
	if live == nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	owner := s.im.owner()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{{
		"id": s.served, "object": "model", "created": time.Now().Unix(), "owned_by": owner,
		"root": s.checkpoint, "max_model_len": live.MaxLen(),
	}}})
}

type completionRequest struct {
	Model    string          `json:"model"`
	Prompt   json.RawMessage `json:"prompt"`
	Messages []struct {
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	MaxTokens           *int `json:"max_tokens"`
	MaxCompletionTokens *int `json:"max_completion_tokens"`
	Stream              bool `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage *bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *server) complete(w http.ResponseWriter, r *http.Request, chat bool) {
	live := s.live.Load()
	if live == nil {
		writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", "the engine is starting")
		return
	}
	var req completionRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", "invalid JSON: "+err.Error())
		return
	}
	if req.Model != "" && req.Model != s.served && req.Model != s.checkpoint {
		writeError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", req.Model))
		return
	}
	tokens, err := promptTokens(req, chat)
	if err != nil {
		writeError(w, http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	out := defaultChatTokens
	if !chat {
		out = s.im.completionTokens()
	}
	for _, p := range []*int{req.MaxTokens, req.MaxCompletionTokens} {
		if p != nil {
			out = *p
		}
	}
	if n := len(tokens) + out; out < 1 || n > live.MaxLen() {
		writeError(w, http.StatusBadRequest, "BadRequestError", fmt.Sprintf(
			"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			live.MaxLen(), n, len(tokens), out))
		return
	}
	lr := sim.LiveRequest{Input: len(tokens), Output: out, Prefix: s.sharedPrefix(tokens)}
	switch s.role {
	case engines.RolePrefill:
		lr.Output = 1 // the first token; the decode server makes the rest
	case engines.RoleDecode:
		if !waitTransfer(r.Context(), len(tokens), s.speed, s.transfer) {
			return
		}
		lr.Arrived = len(tokens)
	}
	st, err := live.Submit(r.Context(), lr)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "ServiceUnavailableError", err.Error())
		return
	}
	defer st.Close() // a no-op once the request is done
	c := &chunker{im: s.im, chat: chat, model: first(req.Model, s.served), created: time.Now().Unix(),
		id: fmt.Sprintf("%s-%x", map[bool]string{true: "chatcmpl", false: "cmpl"}[chat], s.seq.Add(1))}
	if !req.Stream {
		s.whole(w, r, st, c, len(tokens))
		return
	}
	usage := req.StreamOptions != nil && req.StreamOptions.IncludeUsage != nil && *req.StreamOptions.IncludeUsage
	if s.im.usageByDefault() && req.StreamOptions != nil && req.StreamOptions.IncludeUsage == nil {
		usage = true
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	var buf []byte
	send := func() bool {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err == nil && rc.Flush() == nil
	}
	seen := 0
	for {
		n, done, err := st.Next(r.Context(), seen)
		if err != nil {
			if r.Context().Err() == nil {
				buf = c.event(buf, fmt.Appendf(nil, `{"error":{"object":"error","message":%q,"type":"InternalServerError","code":500}}`, err.Error()))
				buf = c.event(buf, []byte("[DONE]"))
				send()
			}
			return
		}
		if n > seen {
			if chat && seen == 0 {
				buf = c.event(buf, c.roleChunk())
			}
			buf = c.event(buf, c.content(n-seen, done && n == out))
			seen = n
		}
		if done {
			break
		}
		if !send() {
			return
		}
	}
	if f := s.im.finishChunk(c); f != nil {
		buf = c.event(buf, f)
	}
	if usage {
		buf = c.event(buf, c.usage(len(tokens), seen))
	}
	buf = c.event(buf, []byte("[DONE]"))
	send()
}

// whole answers a non-streaming request once generation ends.
func (s *server) whole(w http.ResponseWriter, r *http.Request, st *sim.Stream, c *chunker, prompt int) {
	n, _, err := st.Next(r.Context(), int(^uint(0)>>1))
	if err != nil {
		if r.Context().Err() == nil {
			writeError(w, http.StatusInternalServerError, "InternalServerError", err.Error())
		}
		return
	}
	text := strings.Repeat(tokenText, n)
	choice := map[string]any{"index": 0, "text": text, "logprobs": nil, "finish_reason": "length"}
	object := "text_completion"
	if c.chat {
		object = "chat.completion"
		choice = map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "logprobs": nil, "finish_reason": "length"}
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": c.id, "object": object, "created": c.created, "model": c.model,
		"choices": []any{choice}, "usage": map[string]int{"prompt_tokens": prompt, "completion_tokens": n, "total_tokens": prompt + n}})
}

// sharedPrefix is the length of the leading run this prompt shares with
// the previous one: what SGLang's radix cache or vLLM's prefix caching
// would find (bench's random prompts share prefix_len tokens).
func (s *server) sharedPrefix(tokens []uint64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for n < len(tokens) && n < len(s.last) && tokens[n] == s.last[n] {
		n++
	}
	s.last = tokens
	return n
}

// promptTokens stands in for the tokenizer: a token-id prompt is its ids,
// a text prompt one token per word (bench's filler words are one token
// each), a chat the words of its messages.
func promptTokens(req completionRequest, chat bool) ([]uint64, error) {
	if chat {
		if len(req.Messages) == 0 {
			return nil, fmt.Errorf("messages: at least one message is required")
		}
		var out []uint64
		for _, m := range req.Messages {
			text, err := contentText(m.Content)
			if err != nil {
				return nil, err
			}
			out = append(out, words(text)...)
		}
		return out, nil
	}
	p := bytes.TrimSpace(req.Prompt)
	if len(p) > 0 && p[0] == '[' {
		var ids []int64
		if err := json.Unmarshal(p, &ids); err != nil {
			return nil, fmt.Errorf("prompt: a string or one list of token ids (batched prompts are not simulated)")
		}
		out := make([]uint64, len(ids))
		for i, id := range ids {
			if id < 0 {
				return nil, fmt.Errorf("prompt: token id %d < 0", id)
			}
			out[i] = uint64(id)
		}
		return out, nil
	}
	var text string
	if err := json.Unmarshal(p, &text); err != nil {
		return nil, fmt.Errorf("prompt: a string or a list of token ids is required")
	}
	return words(text), nil
}

// contentText reads a message content: a string or a list of text parts.
func contentText(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type, Text string
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("messages: content must be a string or a list of text parts")
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
		b.WriteByte(' ')
	}
	return b.String(), nil
}

func words(text string) []uint64 {
	fs := strings.Fields(text)
	out := make([]uint64, len(fs))
	for i, f := range fs {
		h := fnv.New64a()
		h.Write([]byte(f))
		out[i] = h.Sum64()
	}
	return out
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError is the OpenAI-style error body vLLM and SGLang return.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"object": "error", "message": msg, "type": typ, "param": nil, "code": status})
}
