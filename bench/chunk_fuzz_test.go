package bench

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
)

// FuzzParseChunk checks the hand-written scanner against encoding/json: on
// any input it must not panic, and on a well-formed chunk (valid JSON that
// decodes into the fields' types, without duplicate keys, whose meaning
// differs between the two) it must accept it and agree on what it says.
func FuzzParseChunk(f *testing.F) {
	for _, s := range []string{
		`{"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":" hi","logprobs":null}],"usage":null}`,
		`{"choices":[],"usage":{"prompt_tokens":8192,"total_tokens":9216,"completion_tokens":1024}}`,
		`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
		`{"choices":[{"delta":{"content":null,"reasoning_content":"think"}}]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}`,
		`{"choices":[{"delta":{"tool_calls":[ ]}}]}`,
		`{"a":{"b":[1,{"c":"]}"}]},"choices":[{"logprobs":{"tokens":["x"]},"text":"y"}],"n":-1.5e3,"t":true}`,
		`{"error":{"object":"error","message":"boom","code":500}}`,
		`{"object":"error","message":"too long","code":400}`,
		`{"object":null,"usage":{"prompt_tokens":-1}}`,
		`{"usage":{"prompt_tokens":1e3,"completion_tokens":2.0}}`,
		`{"choices":[{"text":"\"\\n\u00e9"}]}`,
		"[DONE]",
		`{"text":"\`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got chunk
		err := parseChunk(data, &got)
		want, ok := refChunk(data)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("parseChunk(%q): %v; encoding/json accepts it", data, err)
		}
		if got.content != want.content || got.usage != want.usage ||
			got.promptTokens != want.promptTokens || got.completionTokens != want.completionTokens {
			t.Fatalf("parseChunk(%q) = %+v, encoding/json says %+v", data, got, want)
		}
	})
}

// refChunk decodes a chunk with encoding/json (into maps: its struct
// decoding matches keys case-insensitively); ok is false when the input is
// not a well-formed chunk to compare on.
func refChunk(data []byte) (chunk, bool) {
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if bytes.Equal(bytes.TrimSpace(data), []byte("[DONE]")) || !json.Valid(data) || duplicateKeys(data) ||
		dec.Decode(&v) != nil || v == nil {
		return chunk{}, false
	}
	var c chunk
	ok := true
	switch ch := v["choices"].(type) {
	case nil:
	case []any:
		if len(ch) > 0 {
			c.content, ok = refContent(ch[0])
		}
	default:
		return c, false
	}
	switch u := v["usage"].(type) {
	case nil:
	case map[string]any:
		c.usage = true
		c.promptTokens = refCount(u["prompt_tokens"])
		c.completionTokens = refCount(u["completion_tokens"])
	default:
		return c, false
	}
	return c, ok
}

// refContent says whether a choice carries content; ok is false when it is
// not shaped like a choice.
func refContent(choice any) (content, ok bool) {
	m, isMap := choice.(map[string]any)
	if !isMap {
		return false, false
	}
	nonEmpty := func(x any) bool { s, _ := x.(string); return s != "" }
	content = nonEmpty(m["text"])
	for _, k := range []string{"delta", "message"} {
		if d, isMap := m[k].(map[string]any); isMap {
			calls, _ := d["tool_calls"].([]any)
			content = content || nonEmpty(d["content"]) || nonEmpty(d["reasoning_content"]) ||
				nonEmpty(d["reasoning"]) || len(calls) > 0
		}
	}
	return content, true
}

// refCount is a token count as the client uses it: a non-negative integer,
// anything else (null, a fraction, a negative) counting as none.
func refCount(x any) int {
	n, _ := x.(json.Number)
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || i < 0 || len(n) > 18 {
		return 0 // also a count too large to be real, which the scanner refuses
	}
	return int(i)
}

// duplicateKeys reports whether any object in valid JSON data repeats a key
// (encoding/json keeps the last, the scanner may act on each).
func duplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys   map[string]bool
		object bool
		atKey  bool
	}
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].object && stack[top].atKey {
			k, _ := tok.(string)
			if stack[top].keys[k] {
				return true
			}
			stack[top].keys[k] = true
			stack[top].atKey = false
			continue
		}
		if top >= 0 && stack[top].object {
			stack[top].atKey = true // this token is the value
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{keys: map[string]bool{}, object: true, atKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
			if top > 0 && stack[top-1].object {
				stack[top-1].atKey = true
			}
		}
	}
}
