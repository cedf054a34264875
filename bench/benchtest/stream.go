package benchtest

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

const created = 1767225600

// stream writes one response in the configured engine's format.
type stream struct {
	s     *Server
	w     http.ResponseWriter
	rc    *http.ResponseController
	chat  bool
	model string
	idx   int
	usage bool
	buf   []byte
}

func (st *stream) run(r *http.Request, received time.Time, prompt, n int, f Fault) {
	ctx := r.Context()
	cfg := st.s.cfg
	wait := func(until time.Time) bool {
		d := time.Until(until)
		if d <= 0 {
			return true
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		}
	}
	if st.chat && cfg.RoleChunkDelay {
		st.event(st.roleChunk())
		st.flush()
	}
	if !wait(received.Add(cfg.TTFT)) {
		return
	}
	if st.chat && !cfg.RoleChunkDelay {
		st.event(st.roleChunk())
	}
	text := strings.Repeat(" hi", cfg.TokensPerChunk)
	mid := st.contentChunk(text, false)
	var stamps []time.Time
	if cfg.Stamp {
		stamps = make([]time.Time, 0, n/cfg.TokensPerChunk+1)
	}
	first := time.Now()
	sent := 0
	for i := 0; sent < n; i++ {
		if i == f.After && st.fault(ctx, f) {
			return
		}
		k := min(cfg.TokensPerChunk, n-sent)
		sent += k
		if sent < n && k == cfg.TokensPerChunk {
			st.event(mid)
		} else {
			st.event(st.contentChunk(strings.Repeat(" hi", k), sent == n))
		}
		if !st.flush() {
			return
		}
		if cfg.Stamp {
			stamps = append(stamps, time.Now())
		}
		if sent < n && cfg.ITL > 0 && !wait(first.Add(time.Duration(i+1)*cfg.ITL)) {
			return
		}
	}
	if cfg.Stamp {
		st.s.mu.Lock()
		st.s.stamps[st.idx] = stamps
		st.s.mu.Unlock()
	}
	if f.After >= (n+cfg.TokensPerChunk-1)/cfg.TokensPerChunk && st.fault(ctx, f) {
		return
	}
	st.finish(prompt, n)
	st.event([]byte("[DONE]"))
	if st.flush() && cfg.DoneGap > 0 {
		wait(time.Now().Add(cfg.DoneGap))
	}
}

// fault applies a mid-stream fault; true means the response is over.
func (st *stream) fault(ctx interface{ Done() <-chan struct{} }, f Fault) bool {
	switch {
	case f.Reset:
		st.flush()
		panic(http.ErrAbortHandler) // net/http drops the connection, no chunked terminator
	case f.Truncate:
		st.flush()
		return true
	case f.Malformed:
		st.event([]byte(`{"choices":[{"text":" hi"`))
	case f.ErrorEvent:
		st.event([]byte(`{"error":{"object":"error","message":"injected error event","type":"InternalServerError","code":500}}`))
		st.event([]byte("[DONE]"))
		st.flush()
		return true
	case f.Hang:
		st.flush()
		<-ctx.Done()
		return true
	}
	return false
}

func (st *stream) event(data []byte) {
	if st.s.cfg.KeepAlive {
		st.buf = append(st.buf, ": keep-alive\n\n"...)
	}
	st.buf = append(st.buf, "data: "...)
	st.buf = append(st.buf, data...)
	st.buf = append(st.buf, "\n\n"...)
}

func (st *stream) flush() bool {
	if _, err := st.w.Write(st.buf); err != nil {
		return false
	}
	st.buf = st.buf[:0]
	return st.rc.Flush() == nil
}

func (st *stream) head(object string) string {
	prefix := "cmpl"
	if st.chat {
		prefix = "chatcmpl"
	}
	return fmt.Sprintf(`"id":"%s-%d","object":%q,"created":%d,"model":%q`, prefix, st.idx, object, created, st.model)
}

func (st *stream) object() string {
	if st.chat {
		return "chat.completion.chunk"
	}
	return "text_completion"
}

func (st *stream) roleChunk() []byte {
	return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
		st.head("chat.completion.chunk"))
}

// contentChunk is one chunk with generated text; last marks the chunk that
// ends generation in flavors that put finish_reason on the final token.
func (st *stream) contentChunk(text string, last bool) []byte {
	flavor := st.s.cfg.Flavor
	finish := "null"
	if last && flavor != SGLang && flavor != LlamaCpp {
		finish = `"length"`
	}
	if st.chat {
		return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"delta":{"content":%q},"logprobs":null,"finish_reason":%s}]}`,
			st.head(st.object()), text, finish)
	}
	switch flavor {
	case SGLang:
		return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"text":%q,"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":null}`, st.head(st.object()), text)
	case LlamaCpp:
		return fmt.Appendf(nil, `{"choices":[{"text":%q,"index":0,"logprobs":null,"finish_reason":null}],"created":%d,"model":%q,"system_fingerprint":"b8993","object":"text_completion","id":"cmpl-%d"}`, text, created, st.model, st.idx)
	case Ollama:
		return fmt.Appendf(nil, `{%s,"system_fingerprint":"fp_ollama","choices":[{"text":%q,"index":0,"finish_reason":%s}]}`, st.head(st.object()), text, finish)
	}
	return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"text":%q,"logprobs":null,"finish_reason":%s,"stop_reason":null}],"usage":null}`, st.head(st.object()), text, finish)
}

// finish writes the flavor's closing chunks: SGLang's empty finish chunk,
// llama.cpp's usage-carrying final choice, and the usage-only chunk.
func (st *stream) finish(prompt, n int) {
	flavor := st.s.cfg.Flavor
	usage := fmt.Sprintf(`{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d}`, prompt, prompt+n, n)
	switch {
	case flavor == SGLang && !st.chat:
		st.event(fmt.Appendf(nil, `{%s,"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length","matched_stop":null}],"usage":null}`, st.head(st.object())))
	case flavor == SGLang:
		st.event(fmt.Appendf(nil, `{%s,"choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"length","matched_stop":null}]}`, st.head(st.object())))
	case flavor == LlamaCpp && !st.chat:
		// llama.cpp always reports usage on completions, asked or not.
		if st.s.cfg.NoUsage {
			usage = "null"
		}
		st.event(fmt.Appendf(nil, `{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"created":%d,"model":%q,"system_fingerprint":"b8993","object":"text_completion","id":"cmpl-%d","usage":%s,"timings":{"prompt_n":%d,"prompt_ms":12.5,"predicted_n":%d,"predicted_ms":80.25}}`,
			created, st.model, st.idx, usage, prompt, n))
		return
	case flavor == LlamaCpp:
		st.event(fmt.Appendf(nil, `{"choices":[{"index":0,"delta":{},"finish_reason":"length"}],"created":%d,"id":"chatcmpl-%d","model":%q,"object":"chat.completion.chunk"}`, created, st.idx, st.model))
	}
	if !st.usage {
		return
	}
	object := st.object()
	if flavor == TRTLLM {
		object = "chat.completion.chunk" // TRT-LLM serializes its usage chunk as chat even on completions
		usage = strings.TrimSuffix(usage, "}") + `,"prompt_tokens_details":null}`
	}
	st.event(fmt.Appendf(nil, `{%s,"choices":[],"usage":%s}`, st.head(object), usage))
}
