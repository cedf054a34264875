package bench

import (
	"encoding/json"
	"slices"
	"strconv"
)

// promptWords are words that are one token (with a leading space) in the
// common BPE vocabularies, so a text prompt of n words is close to n
// tokens. Text prompts are for servers that take only strings; their exact
// length comes back in usage.
var promptWords = [...]string{
	"the", "of", "and", "to", "in", "is", "it", "you", "that", "he",
	"was", "for", "on", "are", "as", "with", "his", "they", "at", "be",
	"this", "have", "from", "or", "one", "had", "by", "word", "but", "not",
	"what", "all", "were", "we", "when", "your", "can", "said", "there", "use",
	"an", "each", "which", "she", "do", "how", "their", "if", "will", "up",
	"other", "about", "out", "many", "then", "them", "these", "so", "some", "her",
	"would", "make", "like", "him",
}

// PromptWords returns (a copy of) the words text prompts are made of, each
// sent after a space. The tiny test model's tokenizer (engines/gguf) makes
// each one token, so its prompts are as long as the profile says.
func PromptWords() []string { return slices.Clone(promptWords[:]) }

// tokenIDs reports whether r is sent as a token-id list.
func (pl *Plan) tokenIDs(r *PlannedRequest) bool {
	p := pl.Profile
	return r.text == "" && !p.TextPrompts && p.EndpointName() == EndpointCompletions
}

// promptText is r's prompt as a string: the dataset's text, or prompt words
// standing in for the random token ids.
func (pl *Plan) promptText(r *PlannedRequest) string {
	if r.text != "" {
		return r.text
	}
	b := make([]byte, 0, 5*r.InputLen)
	for _, run := range r.segs {
		for j := range run.n {
			b = append(append(b, ' '), promptWords[(run.offset+j)%len(promptWords)]...)
		}
	}
	for _, id := range pl.prefix {
		b = append(append(b, ' '), promptWords[id%len(promptWords)]...)
	}
	for j := 0; r.segs == nil && j < r.InputLen-len(pl.prefix); j++ {
		b = append(append(b, ' '), promptWords[(r.offset+j)%len(promptWords)]...)
	}
	return string(b[1:]) // no leading space: the server may add BOS, not a space token
}

// appendBody appends r's JSON request body. It is built by hand because an
// 8192-token prompt is 50 kB of integers, sent 512 at a time.
func (pl *Plan) appendBody(b []byte, r *PlannedRequest, model string) []byte {
	p := pl.Profile
	b = append(b, `{"model":`...)
	b = appendJSONString(b, model)
	if p.EndpointName() == EndpointChat {
		b = append(b, `,"messages":[{"role":"user","content":`...)
		b = appendJSONString(b, pl.promptText(r))
		b = append(b, `}],"max_completion_tokens":`...)
		b = strconv.AppendInt(b, int64(r.OutputLen), 10)
	} else {
		b = append(b, `,"prompt":`...)
		if pl.tokenIDs(r) {
			b = pl.appendIDs(b, r)
		} else {
			b = appendJSONString(b, pl.promptText(r))
		}
	}
	// max_tokens on chat too: older servers (Ollama, TRT-LLM 1.0) ignore
	// max_completion_tokens.
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, int64(r.OutputLen), 10)
	b = append(b, `,"stream":true,"stream_options":{"include_usage":true}`...)
	switch {
	case p.Quality():
		// Greedy decoding to the model's own end: the reply is the answer.
		b = append(b, `,"temperature":0`...)
	case !p.NoIgnoreEOS:
		b = append(b, `,"ignore_eos":true`...)
	}
	return append(b, '}')
}

// appendIDs writes vllm's random prompt: the shared prefix, then a run of
// the token cycle starting at the request's own offset.
func (pl *Plan) appendIDs(b []byte, r *PlannedRequest) []byte {
	if r.segs != nil {
		return appendRuns(b, r.segs)
	}
	b = append(b, '[')
	for i, id := range pl.prefix {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(id), 10)
	}
	for j := 0; j < r.InputLen-len(pl.prefix); j++ {
		if j > 0 || len(pl.prefix) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(tokenBase+(r.offset+j)%tokenSpan), 10)
	}
	return append(b, ']')
}

// appendRuns writes a shared_prefix prompt: each run of the token cycle
// in turn.
func appendRuns(b []byte, runs []tokenRun) []byte {
	b = append(b, '[')
	first := true
	for _, run := range runs {
		for j := range run.n {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = strconv.AppendInt(b, int64(tokenBase+(run.offset+j)%tokenSpan), 10)
		}
	}
	return append(b, ']')
}

func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
