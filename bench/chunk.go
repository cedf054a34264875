package bench

import (
	"bytes"
	"encoding/json"
	"errors"
)

// chunk is what the load generator needs from one streamed event. Parsing
// into this instead of a full struct keeps the per-chunk cost far below a
// microsecond (BenchmarkParseChunk), so the client never limits a server.
type chunk struct {
	done bool // the [DONE] sentinel
	// content: the first choice carries generated text (completions `text`,
	// chat `delta.content` / `delta.reasoning_content` / `delta.reasoning`,
	// or tool calls). Chat role-only chunks and llama.cpp's final empty-text
	// chunk are not content.
	content bool
	// text is the first choice's completions `text` or chat `content`, as
	// the raw bytes of the JSON string (escapes intact, aliasing the data).
	text []byte
	// usage: a usage object was present (completion/prompt token counts).
	usage            bool
	promptTokens     int
	completionTokens int
	// errMsg is set when the server streamed an error object.
	errMsg string
}

var errMalformed = errors.New("malformed JSON")

// parseChunk parses the payload of one SSE data line.
func parseChunk(data []byte, c *chunk) error {
	*c = chunk{}
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		c.done = true
		return nil
	}
	s := scanner{b: data}
	if !s.consume('{') {
		return errMalformed
	}
	isError := false
	err := s.object(func(key []byte) bool {
		switch string(key) {
		case "choices":
			return s.choices(c)
		case "usage":
			return s.usage(c)
		case "error":
			raw := s.rawValue()
			if string(raw) != "null" && raw != nil {
				c.errMsg = errorMessage(raw)
			}
			return raw != nil
		case "object":
			if s.peek() != '"' {
				return s.skip() // null or worse: not an error marker
			}
			v, ok := s.str()
			isError = string(v) == "error"
			return ok
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	if isError && c.errMsg == "" {
		c.errMsg = errorMessage(data)
	}
	return nil
}

// errorMessage extracts a readable message from an error object, which
// engines shape differently ({"message":..} or {"error":{"message":..}}).
func errorMessage(raw []byte) string {
	var e struct {
		Message string          `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil {
		if e.Message != "" {
			return e.Message
		}
		if len(e.Error) > 0 {
			if m := errorMessage(e.Error); m != "" {
				return m
			}
		}
	}
	var str string
	if json.Unmarshal(raw, &str) == nil && str != "" {
		return str
	}
	return truncate(string(raw), 200)
}

// scanner is a minimal JSON reader: it locates the few fields the client
// needs and skips everything else without decoding it.
type scanner struct {
	b   []byte
	i   int
	bad bool
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

func (s *scanner) consume(c byte) bool {
	if s.peek() == c {
		s.i++
		return true
	}
	return false
}

// object walks the members of an object whose '{' was consumed, calling f
// with each key positioned at its value; f must consume the value.
func (s *scanner) object(f func(key []byte) bool) error {
	if s.consume('}') {
		return nil
	}
	for {
		key, ok := s.str()
		if !ok || !s.consume(':') || !f(key) {
			return errMalformed
		}
		if s.consume(',') {
			continue
		}
		if s.consume('}') {
			return nil
		}
		return errMalformed
	}
}

// str reads a string and returns its raw (still escaped) contents.
func (s *scanner) str() ([]byte, bool) {
	if !s.consume('"') {
		s.bad = true
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\\':
			s.i += 2
		case '"':
			s.i++
			return s.b[start : s.i-1], true
		default:
			s.i++
		}
	}
	s.bad = true
	return nil, false
}

// skip consumes any value.
func (s *scanner) skip() bool {
	switch c := s.peek(); c {
	case '"':
		_, ok := s.str()
		return ok
	case '{', '[':
		return s.skipComposite()
	case 0:
		s.bad = true
		return false
	default: // number, true, false, null
		start := s.i
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return s.i > start
			}
			s.i++
		}
		return s.i > start
	}
}

func (s *scanner) skipComposite() bool {
	depth := 0
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				s.i++
				return true
			}
		case '"':
			if _, ok := s.str(); !ok {
				return false
			}
			continue
		}
		s.i++
	}
	s.bad = true
	return false
}

func (s *scanner) rawValue() []byte {
	s.ws()
	start := s.i
	if !s.skip() {
		return nil
	}
	return s.b[start:s.i]
}

func (s *scanner) null() bool {
	if bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

func (s *scanner) int() (int, bool) {
	s.ws()
	n, start := 0, s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
	}
	// More than 18 digits would overflow: no real count is that large.
	if s.i == start || s.i-start > 18 || s.i < len(s.b) && bytes.IndexByte([]byte(".eE"), s.b[s.i]) >= 0 {
		s.i = start
		return 0, s.skip() // null, negative or a float: not a count we can use
	}
	return n, true
}

// nonEmptyArray reports, without consuming anything, whether the value is
// an array with at least one element.
func (s *scanner) nonEmptyArray() bool {
	at := s.i
	defer func() { s.i = at }()
	return s.consume('[') && s.peek() != ']' && s.peek() != 0
}

// choices reads the choices array: only the first choice matters (n=1).
func (s *scanner) choices(c *chunk) bool {
	if s.peek() == 'n' {
		return s.null()
	}
	if !s.consume('[') {
		return false
	}
	if s.consume(']') {
		return true
	}
	if !s.consume('{') {
		return false
	}
	err := s.object(func(key []byte) bool {
		switch string(key) {
		case "text":
			return s.contentString(c, true)
		case "delta", "message":
			if s.peek() != '{' {
				return s.skip()
			}
			s.i++
			return s.object(func(key []byte) bool {
				switch string(key) {
				case "content":
					return s.contentString(c, true)
				case "reasoning_content", "reasoning":
					return s.contentString(c, false)
				case "tool_calls":
					c.content = c.content || s.nonEmptyArray()
				}
				return s.skip()
			}) == nil
		}
		return s.skip()
	})
	if err != nil {
		return false
	}
	for s.consume(',') {
		if !s.skip() {
			return false
		}
	}
	return s.consume(']')
}

// contentString marks the chunk as content when the value is a non-empty
// string (null and "" are not content).
// An answer's text is kept apart from reasoning, which is not the answer.
func (s *scanner) contentString(c *chunk, answer bool) bool {
	if s.peek() != '"' {
		return s.skip()
	}
	v, ok := s.str()
	if len(v) > 0 {
		c.content = true
		if answer {
			c.text = v
		}
	}
	return ok
}

func (s *scanner) usage(c *chunk) bool {
	if s.peek() == 'n' {
		return s.null()
	}
	if !s.consume('{') {
		return false
	}
	c.usage = true
	return s.object(func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "prompt_tokens":
			c.promptTokens, ok = s.int()
		case "completion_tokens":
			c.completionTokens, ok = s.int()
		default:
			ok = s.skip()
		}
		return ok
	}) == nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
