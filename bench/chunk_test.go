package bench

import (
	"reflect"
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
		// Found by FuzzParseChunk: valid chunks the scanner used to refuse
		// or misread.
		{"null object", `{"object":null,"choices":[{"text":"a"}]}`, chunk{content: true}},
		{"counts that are not integers", `{"usage":{"prompt_tokens":1e3,"completion_tokens":2.0}}`, chunk{usage: true}},
		{"negative count", `{"usage":{"prompt_tokens":-1,"completion_tokens":3}}`, chunk{usage: true, completionTokens: 3}},
		{"count too large", `{"usage":{"completion_tokens":12345678901234567890}}`, chunk{usage: true}},
		{"empty tool calls with a space", `{"choices":[{"delta":{"tool_calls":[ ]}}]}`, chunk{}},
		{"done", "[DONE]", chunk{done: true}},
		{"done with spaces", " [DONE] ", chunk{done: true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got chunk
			if err := parseChunk([]byte(tc.data), &got); err != nil {
				t.Fatalf("parseChunk: %v", err)
			}
			text := jsonStringText(got.text)
			got.text = nil
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if want := answerTexts[tc.name]; text != want {
				t.Errorf("answer text %q, want %q", text, want)
			}
		})
	}
}

// answerTexts are the replies quality profiles keep from the chunks above
// (every other case carries none): reasoning is not the answer.
var answerTexts = map[string]string{
	"vllm completion":       " hi",
	"escaped text":          `"\né`,
	"chat content":          "ok",
	"nested skipped values": "y",
	"null error":            "a",
	"null object":           "a",
}

func TestParseChunkMalformed(t *testing.T) {
	for _, data := range []string{``, `{`, `{"choices":[{"text":" hi"`, `not json`, `{"choices":[{"text":"x"}]`, `{"a" 1}`, `["x"]`, `{"text":"unterminated}`} {
		var c chunk
		if err := parseChunk([]byte(data), &c); err == nil {
			t.Errorf("parseChunk(%q) = %+v, want an error", data, c)
		}
	}
}
