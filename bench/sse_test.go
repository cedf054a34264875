package bench

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestParseChunk(t *testing.T) {
	cases := []struct {
		name string
		data string
		want chunk
	}{
		{"vllm completion", `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hi","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`,
			chunk{content: true}},
		{"empty text is not content", `{"choices":[{"index":0,"text":"","finish_reason":"length"}]}`, chunk{}},
		{"escaped text", `{"choices":[{"text":"\"\\n\u00e9"}]}`, chunk{content: true}},
		{"usage only", `{"id":"x","choices":[],"usage":{"prompt_tokens":8192,"total_tokens":9216,"completion_tokens":1024}}`,
			chunk{usage: true, promptTokens: 8192, completionTokens: 1024}},
		{"llama.cpp final", `{"choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"length"}],"usage":{"completion_tokens":7,"prompt_tokens":3,"total_tokens":10},"timings":{"prompt_ms":1.5}}`,
			chunk{usage: true, promptTokens: 3, completionTokens: 7}},
		{"chat role", `{"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`, chunk{}},
		{"chat content", `{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}`, chunk{content: true}},
		{"chat reasoning", `{"choices":[{"delta":{"content":null,"reasoning_content":"think"}}]}`, chunk{content: true}},
		{"chat tool call", `{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}`, chunk{content: true}},
		{"chat empty tool calls", `{"choices":[{"delta":{"tool_calls":[]}}]}`, chunk{}},
		{"second choice ignored", `{"choices":[{"text":""},{"text":"x"}]}`, chunk{}},
		{"nested skipped values", `{"a":{"b":[1,{"c":"]}"}]},"choices":[{"logprobs":{"tokens":["x"]},"text":"y"}],"n":-1.5e3,"t":true}`, chunk{content: true}},
		{"error object", `{"error":{"object":"error","message":"boom","code":500}}`, chunk{errMsg: "boom"}},
		{"error string", `{"error":"bad things"}`, chunk{errMsg: "bad things"}},
		{"null error", `{"error":null,"choices":[{"text":"a"}]}`, chunk{content: true}},
		{"object error", `{"object":"error","message":"too long","code":400}`, chunk{errMsg: "too long"}},
		{"done", "[DONE]", chunk{done: true}},
		{"done with spaces", " [DONE] ", chunk{done: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got chunk
			if err := parseChunk([]byte(tc.data), &got); err != nil {
				t.Fatalf("parseChunk: %v", err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseChunkMalformed(t *testing.T) {
	for _, data := range []string{``, `{`, `{"choices":[{"text":" hi"`, `not json`, `{"choices":[{"text":"x"}]`, `{"a" 1}`, `["x"]`, `{"text":"unterminated}`} {
		var c chunk
		if err := parseChunk([]byte(data), &c); err == nil {
			t.Errorf("parseChunk(%q) = %+v, want an error", data, c)
		}
	}
}

func TestSSEReader(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	in := ": keep-alive\n\nevent: message\nid: 3\ndata: {\"a\":1}\r\n\r\ndata:{\"b\":2}\n\nretry: 10\ndata: " + long + "\n\ndata: [DONE]\n\n"
	r := newSSEReader(strings.NewReader(in))
	var got []string
	for {
		d, err := r.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(d))
	}
	want := []string{`{"a":1}`, `{"b":2}`, long, "[DONE]"}
	if len(got) != len(want) {
		t.Fatalf("got %d payloads, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("payload %d = %.40q, want %.40q", i, got[i], want[i])
		}
	}
}

func TestSSEReaderCutMidLine(t *testing.T) {
	r := newSSEReader(strings.NewReader("data: {\"a\":1}\n\ndata: {\"choi"))
	if _, err := r.next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
}
