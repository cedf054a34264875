package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// synthRow is one request of a synthetic trace, written in any format.
type synthRow struct {
	ms      int64
	in, out int
	hashes  []int64
}

// synthTrace draws n requests at about rate req/s whose prompts open with
// one of a few shared system prompts (2 blocks) and, for half, a previous
// turn of their conversation: the prefix structure of a chat trace.
func synthTrace(n int, rate float64, seed uint64) []synthRow {
	rng := rand.New(rand.NewPCG(seed, 1))
	rows := make([]synthRow, n)
	ms := 0.0
	next := int64(1000)
	for i := range rows {
		ms += rng.ExpFloat64() / rate * 1000
		sys := int64(rng.IntN(4)) * 2
		blocks := 1 + rng.IntN(6)
		h := []int64{sys, sys + 1}
		for range blocks {
			h = append(h, next)
			next++
		}
		if i > 0 && rng.IntN(2) == 0 {
			prev := rows[rng.IntN(i)].hashes
			h = append(append([]int64(nil), prev...), next)
			next++
		}
		in := (len(h)-1)*512 + 1 + rng.IntN(512)
		rows[i] = synthRow{int64(ms), in, 1 + rng.IntN(400), h}
	}
	return rows
}

func writeTrace(t testing.TB, format string, rows []synthRow) string {
	t.Helper()
	var b strings.Builder
	ext := ".jsonl"
	switch format {
	case TraceMooncake:
		for _, r := range rows {
			h, _ := json.Marshal(r.hashes)
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": %s}`+"\n", r.ms, r.in, r.out, h)
		}
	case TraceGeneric:
		for _, r := range rows {
			h, _ := json.Marshal(r.hashes)
			fmt.Fprintf(&b, `{"t_ms": %d, "input_tokens": %d, "output_tokens": %d, "prefix": %s}`+"\n", r.ms, r.in, r.out, h)
		}
	case TraceAzure:
		ext = ".csv"
		b.WriteString("TIMESTAMP,ContextTokens,GeneratedTokens\n")
		base := time.Date(2023, 11, 16, 18, 15, 46, 0, time.UTC)
		for _, r := range rows {
			at := base.Add(time.Duration(r.ms) * time.Millisecond)
			fmt.Fprintf(&b, "%s,%d,%d\n", at.Format("2006-01-02 15:04:05.0000000"), r.in, r.out)
		}
	case TraceBurstGPT:
		ext = ".csv"
		b.WriteString("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "%.3f,ChatGPT,%d,%d,%d,Conversation log\n", float64(r.ms)/1000, r.in, r.out, r.in+r.out)
		}
	}
	path := filepath.Join(t.TempDir(), "trace"+ext)
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func traceProfile(path string, tr *Trace) Profile {
	return Profile{Name: "t", Dataset: DatasetTrace, DatasetPath: path, Trace: tr, Seed: 3}
}

// Every format, detected from its file, plans the trace's requests at the
// trace's times with its lengths; only the formats with hashes carry the
// prefix blocks.
func TestTraceFormatsReplayTheTrace(t *testing.T) {
	rows := synthTrace(200, 5, 1)
	for _, f := range traceFormats {
		t.Run(f, func(t *testing.T) {
			pl, err := traceProfile(writeTrace(t, f, rows), nil).Plan()
			if err != nil {
				t.Fatal(err)
			}
			if len(pl.Requests) != len(rows) {
				t.Fatalf("%d requests planned, want %d", len(pl.Requests), len(rows))
			}
			for i, r := range pl.Requests {
				want := time.Duration(rows[i].ms-rows[0].ms) * time.Millisecond
				if d := r.Arrival - want; d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("request %d due at %v, want %v", i, r.Arrival, want)
				}
				if r.InputLen != rows[i].in || r.OutputLen != rows[i].out || runsLen(r.segs) != r.InputLen {
					t.Fatalf("request %d: in %d (prompt %d) out %d, want %d / %d", i, r.InputLen, runsLen(r.segs), r.OutputLen, rows[i].in, rows[i].out)
				}
				hashed := f == TraceMooncake || f == TraceGeneric
				if wantBlocks := min(len(rows[i].hashes), rows[i].in/512); hashed && len(r.Blocks) != wantBlocks {
					t.Fatalf("request %d has %d full blocks, want %d", i, len(r.Blocks), wantBlocks)
				}
				if !hashed && (r.Blocks != nil || r.Shared != 0) {
					t.Fatalf("request %d of a format without hashes has blocks %v shared %d", i, r.Blocks, r.Shared)
				}
			}
		})
	}
}

// promptIDs is the token ids request r sends.
func promptIDs(t *testing.T, pl *Plan, r *PlannedRequest) []int {
	t.Helper()
	var ids []int
	if err := json.Unmarshal(pl.appendIDs(nil, r), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

func commonPrefix(a, b []int) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Requests share exactly the tokens their leading hashes say: identical
// leading blocks give identical tokens, and a different block (or the
// same hash after a different one) breaks the prefix at its start.
func TestTracePromptsShareWhatTheHashesShare(t *testing.T) {
	rows := []synthRow{
		{0, 1500, 10, []int64{1, 2, 3}},
		{10, 1400, 10, []int64{1, 2, 9}},
		{20, 1500, 10, []int64{5, 2, 3}},
		{30, 1500, 10, []int64{1, 2, 3}},
		{40, 700, 10, nil},
	}
	pl, err := traceProfile(writeTrace(t, TraceMooncake, rows), nil).Plan()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([][]int, len(pl.Requests))
	for i := range pl.Requests {
		ids[i] = promptIDs(t, &pl, &pl.Requests[i])
		if len(ids[i]) != rows[i].in {
			t.Fatalf("request %d sends %d tokens, want %d", i, len(ids[i]), rows[i].in)
		}
	}
	cases := []struct{ a, b, common int }{
		{0, 1, 1024}, // first two blocks
		{0, 2, 0},    // block 2's hash follows another first block
		{0, 3, 1500}, // the same prompt, partial last block included
		{0, 4, 0},
	}
	for _, c := range cases {
		if got := commonPrefix(ids[c.a], ids[c.b]); got != c.common {
			t.Errorf("requests %d and %d share %d leading tokens, want %d", c.a, c.b, got, c.common)
		}
	}
	// Shared counts full blocks seen before: what a block cache serves.
	for i, want := range []int{0, 1024, 0, 1024, 0} {
		if got := pl.Requests[i].Shared; got != want {
			t.Errorf("request %d: Shared %d, want %d", i, got, want)
		}
	}
}

// The window, speedup, sample and cap select and rescale the rows as
// documented.
func TestTraceWindowSpeedupSampleCap(t *testing.T) {
	rows := make([]synthRow, 100)
	for i := range rows {
		rows[i] = synthRow{int64(5000 + i*1000), 100, 10, nil} // one a second from 5 s
	}
	path := writeTrace(t, TraceGeneric, rows)
	cases := []struct {
		name  string
		tr    *Trace
		cap   int
		n     int
		first time.Duration
		last  time.Duration
	}{
		{"whole", nil, 0, 100, 0, 99 * time.Second},
		{"window", &Trace{Start: 10 * time.Second, Duration: 20 * time.Second}, 0, 20, 0, 19 * time.Second},
		{"speedup", &Trace{Start: 10 * time.Second, Duration: 20 * time.Second, Speedup: 4}, 0, 20, 0, 19 * time.Second / 4},
		{"cap", &Trace{Start: 500 * time.Millisecond}, 7, 7, 500 * time.Millisecond, 6500 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := traceProfile(path, c.tr)
			p.NumPrompts = c.cap
			pl, err := p.Plan()
			if err != nil {
				t.Fatal(err)
			}
			got := pl.Requests
			if len(got) != c.n || got[0].Arrival != c.first || got[len(got)-1].Arrival != c.last {
				t.Fatalf("%d requests from %v to %v, want %d from %v to %v", len(got), got[0].Arrival, got[len(got)-1].Arrival, c.n, c.first, c.last)
			}
		})
	}
	// Sampling keeps about its fraction, the same rows for the same seed.
	p := traceProfile(path, &Trace{Sample: 0.5})
	a, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.Plan()
	if n := len(a.Requests); n < 30 || n > 70 || n != len(b.Requests) || a.Requests[n-1].Arrival != b.Requests[n-1].Arrival {
		t.Fatalf("sample 0.5 of 100 kept %d then %d rows", n, len(b.Requests))
	}
}

// A bad row is named by file and line, as the other datasets' are.
func TestTraceBadRows(t *testing.T) {
	cases := []struct {
		name, format, body, want string
	}{
		{"mooncake missing key", "m.jsonl", "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1}\n{\"timestamp\": 1, \"output_length\": 3}\n", "m.jsonl:2: mooncake: input_length is missing"},
		{"mooncake bad json", "m.jsonl", "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 1}\n\n{\"timestamp\": 1,\n", "m.jsonl:3: mooncake: unexpected end of JSON input"},
		{"negative length", "g.jsonl", "{\"t_ms\": 0, \"input_tokens\": -4, \"output_tokens\": 1}\n", "g.jsonl:1: generic: input_tokens must be a token count"},
		{"unsorted", "g.jsonl", "{\"t_ms\": 50, \"input_tokens\": 4, \"output_tokens\": 1}\n{\"t_ms\": 10, \"input_tokens\": 4, \"output_tokens\": 1}\n", "g.jsonl:2: generic: timestamp -40ms is before line 1's 0s"},
		{"azure bad time", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.68,10,2\nyesterday,10,2\n", "a.csv:3: azure: TIMESTAMP \"yesterday\""},
		{"burst bad count", "b.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,ten,2,12,x\n", "b.csv:2: burstgpt: Request tokens \"ten\" is not a token count"},
		{"csv missing column", "x.csv", "TIMESTAMP,ContextTokens\n", "cannot tell its format"},
		{"azure short row", "a.csv", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,10\n", "a.csv:2: azure: has 2 fields"},
		{"empty window", "g.jsonl", "{\"t_ms\": 0, \"input_tokens\": 4, \"output_tokens\": 0}\n", "no request in the window"},
		{"every row without output", "g.jsonl", "{\"t_ms\": 0, \"input_tokens\": 4, \"output_tokens\": 0}\n", "1 rows skipped for 0 tokens, the last for its output_tokens"},
		// Issue 48, fifth pass: both replayed, the hashes misread.
		{"negative hash id", "m.jsonl", "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 1, \"hash_ids\": [3, -1]}\n", "m.jsonl:1: mooncake: hash_ids[1] is -1"},
		{"a misspelt key", "m.jsonl", "{\"timestamp\": 0, \"input_len\": 5, \"output_length\": 1}\n", `"input_len" is not a mooncake key; did you mean "input_length"?`},
		{"more hashes than blocks", "g.jsonl", "{\"t_ms\": 0, \"input_tokens\": 600, \"output_tokens\": 1, \"prefix\": [1, 2, 3]}\n", "g.jsonl:1: generic: prefix lists 3 blocks, more than the 2 of 512 tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.format)
			if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := traceProfile(path, nil).Plan()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// The request cap of a window is an error naming the line, not a plan
// that fills the memory.
func TestTraceRequestLimit(t *testing.T) {
	b := newTraceBuilder(traceProfile("x", nil))
	b.limit = 3
	var err error
	for i := range 5 {
		if err = b.add(traceRow{at: time.Duration(i), in: 1, out: 1}, i+1); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "line 4: more than 3 requests in the window") {
		t.Fatalf("error %v", err)
	}
}

func TestDetectTraceFormat(t *testing.T) {
	cases := []struct{ path, line, want string }{
		{"t.jsonl", `{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]}`, TraceMooncake},
		{"t.json", `{"t_ms": 0, "input_tokens": 5, "output_tokens": 1}`, TraceGeneric},
		{"t.csv", "TIMESTAMP,ContextTokens,GeneratedTokens", TraceAzure},
		{"t.CSV", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type", TraceBurstGPT},
		{"t.csv", `{"timestamp": 0, "input_length": 5}`, ""},
		{"t.txt", "hello", ""},
	}
	for _, c := range cases {
		got, err := detectTraceFormat(c.path, []byte(c.line))
		if got != c.want || (c.want == "") != (err != nil) {
			t.Errorf("detect(%s, %q) = %q, %v; want %q", c.path, c.line, got, err, c.want)
		}
	}
}

func TestTraceProfileProblems(t *testing.T) {
	ok := traceProfile("t.jsonl", nil)
	cases := []struct {
		name string
		edit func(*Profile)
		key  string
	}{
		{"no file", func(p *Profile) { p.DatasetPath = "" }, "dataset_path"},
		{"rate", func(p *Profile) { p.RequestRate = 4 }, "request_rate"},
		{"lengths", func(p *Profile) { p.InputLen = 4 }, "input_len"},
		{"stages", func(p *Profile) { p.Stages = []Stage{{Rate: 1, Duration: time.Second}} }, "stages"},
		{"format", func(p *Profile) { p.Trace = &Trace{Format: "moonc"} }, "trace.format"},
		{"speedup", func(p *Profile) { p.Trace = &Trace{Speedup: -1} }, "trace.speedup"},
		{"sample", func(p *Profile) { p.Trace = &Trace{Sample: 1.5} }, "trace.sample"},
		{"start", func(p *Profile) { p.Trace = &Trace{Start: -time.Second} }, "trace.start"},
		{"block", func(p *Profile) { p.Trace = &Trace{BlockTokens: -1} }, "trace.block_tokens"},
		{"cap", func(p *Profile) { p.NumPrompts = -1 }, "num_prompts"},
	}
	if probs := ok.Problems(); len(probs) != 0 {
		t.Fatalf("valid trace profile: %v", probs)
	}
	for _, c := range cases {
		p := ok
		c.edit(&p)
		probs := p.Problems()
		if len(probs) != 1 || probs[0].Key != c.key {
			t.Errorf("%s: problems %v, want one on %s", c.name, probs, c.key)
		}
	}
	p := ok
	p.Trace = &Trace{Format: "moncake"}
	if msg := p.Problems()[0].Msg; !strings.Contains(msg, `did you mean "mooncake"`) {
		t.Errorf("format hint: %s", msg)
	}
}

// A trace profile's arrival span is its window over its speedup.
func TestTraceArrivalSpan(t *testing.T) {
	p := traceProfile("t.jsonl", &Trace{Duration: time.Hour, Speedup: 2})
	if got := p.ArrivalSpan(); got != 30*time.Minute {
		t.Fatalf("span %v, want 30m", got)
	}
	if p.Unlimited() {
		t.Fatal("a trace profile is not an unlimited-rate one")
	}
}

// BenchmarkTraceBody is the client's own work between a request falling
// due and its send: the JSON body of a 16-block (8,192-token) trace prompt.
//
//	go test ./bench -run '^$' -bench TraceBody
func BenchmarkTraceBody(b *testing.B) {
	h := make([]int64, 16)
	for i := range h {
		h[i] = int64(i)
	}
	pl, err := traceProfile(writeTrace(b, TraceMooncake, []synthRow{{0, 16 * 512, 32, h}}), nil).Plan()
	if err != nil {
		b.Fatal(err)
	}
	r := &pl.Requests[0]
	for b.Loop() {
		_ = pl.appendBody(make([]byte, 0, 64+8*r.InputLen), r, "m")
	}
}

// The documentation's example traces plan as their formats say, each
// detected from its file: BurstGPT's two failed requests (0 response
// tokens) are skipped, and the formats with hashes share prefixes.
func TestExampleTraces(t *testing.T) {
	cases := []struct {
		file     string
		n        int
		prefixes bool
	}{
		{"mooncake.jsonl", 48, true},
		{"generic.jsonl", 36, true},
		{"azure.csv", 48, false},
		{"burstgpt.csv", 46, false},
	}
	for _, c := range cases {
		pl, err := traceProfile(filepath.Join("..", "examples", "traces", c.file), nil).Plan()
		if err != nil {
			t.Fatal(err)
		}
		shared := 0
		for _, r := range pl.Requests {
			shared += r.Shared
		}
		if len(pl.Requests) != c.n || (shared > 0) != c.prefixes {
			t.Errorf("%s: %d requests, %d shared tokens; want %d requests, shared %v", c.file, len(pl.Requests), shared, c.n, c.prefixes)
		}
	}
}

// A trace file over the size bound is refused before it is read (a
// sparse file: nothing is written).
func TestTraceFileSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, maxTraceBytes+1); err != nil {
		t.Skip("no sparse files here:", err)
	}
	_, err := traceProfile(path, nil).Plan()
	if err == nil || !strings.Contains(err.Error(), "more than the 1073741824 a plan reads") {
		t.Fatalf("error %v", err)
	}
}

// A trace window that would replay for longer than a profile may run is
// refused at load, naming trace.duration, like a profile's own span.
func TestTraceWindowBoundedBySpan(t *testing.T) {
	for _, c := range []struct {
		tr   Trace
		fail bool
	}{
		{Trace{Duration: 2 * MaxSpan}, true},
		{Trace{Duration: MaxSpan, Speedup: 0.5}, true},
		{Trace{Duration: 2 * MaxSpan, Speedup: 4}, false},
		{Trace{Duration: time.Hour}, false},
	} {
		var keys []string
		c.tr.problems(func(key, _ string, _ ...any) { keys = append(keys, key) })
		if got := slices.Contains(keys, "trace.duration"); got != c.fail {
			t.Errorf("%+v: refused %v (keys %v), want %v", c.tr, got, keys, c.fail)
		}
	}
}

// A trace.format other than the file's, and a directory for the file, are
// errors naming the key at fault (KeyError): the first read "azure:
// header: bare \" in non-quoted field", the second "cannot tell its
// format" (issue 48, fifth pass).
func TestTraceKeyErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	if err := os.WriteFile(path, []byte(`{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    Profile
		key  string
		want string
	}{
		{traceProfile(path, &Trace{Format: TraceAzure}), "trace.format", `the first line of ` + path + ` is a mooncake row`},
		{traceProfile(dir, nil), "dataset_path", "is a directory"},
	} {
		_, err := c.p.Plan()
		var ke *KeyError
		if !errors.As(err, &ke) || ke.Key != c.key || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want a KeyError on %s saying %q", c.p.Trace, err, c.key, c.want)
		}
	}
	if _, err := traceProfile(path, &Trace{Format: TraceMooncake}).Plan(); err != nil {
		t.Errorf("the right format: %v", err)
	}
}
