package simserve

import (
	"fmt"
	"strings"
)

// tokenText is one simulated token's text (leading space, as BPE words).
const tokenText = " hi"

// chunker renders one response's SSE events in the engine's shapes
// (engines.md §6): vLLM and TRT-LLM put finish_reason on the last token's
// chunk; SGLang sends an empty finish chunk; TRT-LLM's usage chunk is a
// chat.completion.chunk even on /v1/completions.
type chunker struct {
	im      chunks
	chat    bool
	model   string
	id      string
	created int64
}

func (c *chunker) event(buf, data []byte) []byte {
	buf = append(buf, "data: "...)
	buf = append(buf, data...)
	return append(buf, "\n\n"...)
}

func (c *chunker) head(object string) string {
	return fmt.Sprintf(`"id":%q,"object":%q,"created":%d,"model":%q`, c.id, object, c.created, c.model)
}

func (c *chunker) object() string {
	if c.chat {
		return "chat.completion.chunk"
	}
	return "text_completion"
}

func (c *chunker) roleChunk() []byte {
	return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`, c.head(c.object()))
}

// content is one step's tokens for this request; last marks the chunk
// that ends generation.
func (c *chunker) content(n int, last bool) []byte {
	text := strings.Repeat(tokenText, n)
	finish := "null"
	if last && c.im.finishOnLast() {
		finish = `"length"`
	}
	if c.chat {
		return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"delta":{"content":%q},"logprobs":null,"finish_reason":%s}]}`, c.head(c.object()), text, finish)
	}
	return c.im.textChunk(c, text, finish)
}

// openAIChunks are the OpenAI server's shapes (vLLM, TRT-LLM): the last
// token's chunk carries finish_reason, no finish chunk follows.
type openAIChunks struct{}

func (openAIChunks) finishOnLast() bool { return true }

func (openAIChunks) textChunk(c *chunker, text, finish string) []byte {
	return fmt.Appendf(nil, `{%s,"choices":[{"index":0,"text":%q,"logprobs":null,"finish_reason":%s,"stop_reason":null}],"usage":null}`, c.head(c.object()), text, finish)
}

func (openAIChunks) finishChunk(*chunker) []byte { return nil }

func (openAIChunks) usageObject(c *chunker) string { return c.object() }

func (c *chunker) usage(prompt, n int) []byte {
	object := c.im.usageObject(c)
	return fmt.Appendf(nil, `{%s,"choices":[],"usage":{"prompt_tokens":%d,"total_tokens":%d,"completion_tokens":%d}}`, c.head(object), prompt, prompt+n, n)
}
