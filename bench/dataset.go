package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"unicode/utf8"
)

// Random prompts are token ids in [tokenBase, tokenBase+tokenSpan): above the
// control and byte-fallback ids every common tokenizer puts first, and below
// the smallest vocabulary in use (32000), so every id is an ordinary token of
// any model. The server then counts exactly InputLen prompt tokens.
const (
	tokenBase = 1000
	tokenSpan = 30000
)

// vllm's ShareGPT filter (is_valid_sequence).
const (
	shareGPTMinLen    = 4
	shareGPTMaxPrompt = 1024
	shareGPTMaxTotal  = 2048
)

func datasetRNG(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x64617461)) //nolint:gosec // sampling, not secrets
}

// randomRequests follows vllm's RandomDataset: lengths uniform in the range
// around input_len/output_len, a shared random prefix, and per request a
// random offset into a cycle over the token range. It plans p.Count()
// requests: num_prompts, or with stages their rate × duration.
func randomRequests(p Profile) ([]PlannedRequest, []int) {
	rng := datasetRNG(p.Seed)
	prefix := make([]int, p.PrefixLen)
	for i := range prefix {
		prefix[i] = tokenBase + rng.IntN(tokenSpan)
	}
	inLo, inHi := lengthRange(p.InputLen, p.RangeRatio, 1)
	outLo, outHi := lengthRange(p.OutputLen, p.RangeRatio, 1)
	reqs := make([]PlannedRequest, p.Count())
	for i := range reqs {
		in := inLo + rng.IntN(inHi-inLo+1)
		out := outLo + rng.IntN(outHi-outLo+1)
		// vllm offsets request i's cycle by offset_i + i.
		reqs[i] = PlannedRequest{InputLen: p.PrefixLen + in, OutputLen: out, offset: rng.IntN(tokenSpan) + i}
	}
	return reqs, prefix
}

// syntheticShareGPT stands in for the ShareGPT file when none is given, so
// the simulator and `servetune bench --profile sharegpt` work offline. The
// lengths are log-normal — prompt median 170 tokens, reply median 150, both
// with sigma 1.0 — then filtered exactly as vllm filters real ShareGPT
// (docs/metrics.md). The means (≈250 in, ≈220 out) sit between the seeds'
// measured ShareGPT averages (233/221 per request in seed 004, 328/270 in
// seed 002).
func syntheticShareGPT(p Profile) []PlannedRequest {
	rng := datasetRNG(p.Seed)
	n := p.Count()
	reqs := make([]PlannedRequest, 0, n)
	for len(reqs) < n {
		in := int(math.Round(170 * math.Exp(rng.NormFloat64())))
		out := int(math.Round(150 * math.Exp(rng.NormFloat64())))
		if p.OutputLen > 0 {
			out = p.OutputLen
		}
		if !validShareGPT(in, out, p.OutputLen > 0) {
			continue
		}
		reqs = append(reqs, PlannedRequest{InputLen: in, OutputLen: out, offset: rng.IntN(tokenSpan) + len(reqs)})
	}
	return reqs
}

func validShareGPT(in, out int, fixedOut bool) bool {
	if in < shareGPTMinLen || (!fixedOut && out < shareGPTMinLen) {
		return false
	}
	return in <= shareGPTMaxPrompt && in+out <= shareGPTMaxTotal
}

type shareGPTEntry struct {
	Conversations []struct {
		Value string `json:"value"`
	} `json:"conversations"`
}

// shareGPTFile samples a ShareGPT JSON file as vllm does: entries with at
// least two turns, prompt = turn 0, reference reply = turn 1 (its length is
// max_tokens unless output_len is set), the vllm length filter, seeded
// shuffle, and oversampling when too few entries pass. Like every dataset
// it plans p.Count() requests, so stages size it too.
func shareGPTFile(p Profile) ([]PlannedRequest, error) {
	f, err := os.Open(p.DatasetPath)
	if err != nil {
		return nil, fmt.Errorf("sharegpt dataset: %w", err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(f, 1<<20))
	tok, err := dec.Token()
	if errors.Is(err, io.EOF) {
		err = errEmpty
	}
	if err != nil {
		return nil, fmt.Errorf("sharegpt dataset %s: %w", p.DatasetPath, err)
	}
	if tok != json.Delim('[') {
		return nil, fmt.Errorf("sharegpt dataset %s: want a JSON array of conversations, found %v", p.DatasetPath, tok)
	}
	var valid []PlannedRequest
	seen := 0
	for dec.More() {
		var e shareGPTEntry
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("sharegpt dataset %s: entry %d: %w", p.DatasetPath, seen, err)
		}
		seen++
		if len(e.Conversations) < 2 {
			continue
		}
		prompt := e.Conversations[0].Value
		in, out := EstimateTokens(prompt), EstimateTokens(e.Conversations[1].Value)
		if p.OutputLen > 0 {
			out = p.OutputLen
		}
		if validShareGPT(in, out, p.OutputLen > 0) {
			valid = append(valid, PlannedRequest{InputLen: in, OutputLen: out, text: prompt})
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("sharegpt dataset %s: after entry %d: %w", p.DatasetPath, seen, err)
	}
	if len(valid) == 0 {
		return nil, fmt.Errorf("sharegpt dataset %s: none of its %d entries has two turns within the length limits", p.DatasetPath, seen)
	}
	rng := datasetRNG(p.Seed)
	rng.Shuffle(len(valid), func(i, j int) { valid[i], valid[j] = valid[j], valid[i] })
	reqs := make([]PlannedRequest, p.Count())
	for i := range reqs {
		if i < len(valid) {
			reqs[i] = valid[i]
		} else {
			reqs[i] = valid[rng.IntN(len(valid))]
		}
	}
	return reqs, nil
}

type jsonlEntry struct {
	Prompt    *string `json:"prompt"`
	MaxTokens int     `json:"max_tokens"`
	// Reference is the expected answer of a quality profile: the reply
	// must equal it (spaces at either end aside), or match
	// ReferenceRegex.
	Reference      *string `json:"reference"`
	ReferenceRegex *string `json:"reference_regex"`
}

// jsonlFile reads one {"prompt": "...", "max_tokens": N} per line, in file
// order, cycling when the file has fewer lines than the profile sends
// (num_prompts, or the stages' rate × duration).
func jsonlFile(p Profile) ([]PlannedRequest, error) {
	f, err := os.Open(p.DatasetPath)
	if err != nil {
		return nil, fmt.Errorf("jsonl dataset: %w", err)
	}
	defer f.Close()
	var rows []PlannedRequest
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(strings.TrimSpace(string(b))) == 0 {
			continue
		}
		var e jsonlEntry
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("jsonl dataset %s:%d: %w", p.DatasetPath, line, err)
		}
		if e.Prompt == nil || e.MaxTokens <= 0 {
			return nil, fmt.Errorf("jsonl dataset %s:%d: want {\"prompt\": string, \"max_tokens\": N > 0}", p.DatasetPath, line)
		}
		ref, err := e.reference()
		if err != nil {
			return nil, fmt.Errorf("jsonl dataset %s:%d: %w", p.DatasetPath, line, err)
		}
		rows = append(rows, PlannedRequest{InputLen: EstimateTokens(*e.Prompt), OutputLen: e.MaxTokens, text: *e.Prompt, ref: ref})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("jsonl dataset %s: %w", p.DatasetPath, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("jsonl dataset %s: %w", p.DatasetPath, errEmpty)
	}
	reqs := make([]PlannedRequest, p.Count())
	for i := range reqs {
		reqs[i] = rows[i%len(rows)]
	}
	return reqs, nil
}

var errEmpty = errors.New("no prompts in file")

// EstimateTokens guesses a text's token count without a tokenizer: one
// token per 4 ASCII bytes and one per other character (CJK text is about a
// token a character). It only filters and sizes plans; recorded token
// counts come from the server's usage.
func EstimateTokens(s string) int {
	ascii, other := 0, 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		other++
		i += n
	}
	return (ascii+3)/4 + other
}
