package bench

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// fuzzTrace parses data in format and plans what it reads: any input
// either fails with a line-numbered error or yields requests whose prompts
// are exactly as long as their rows say and due in order.
func fuzzTrace(t *testing.T, format string, data []byte) {
	b := newTraceBuilder(Profile{Dataset: DatasetTrace, Seed: 1})
	b.limit = 10_000
	err := readTrace(bytes.NewReader(data), format, b.add)
	var le *lineError
	if err != nil && !errors.As(err, &le) {
		t.Fatalf("error without a line: %v", err)
	}
	if le != nil && le.line < 1 {
		t.Fatalf("line %d in %v", le.line, err)
	}
	var prev time.Duration
	for i, r := range b.reqs {
		if r.InputLen < 1 || r.OutputLen < 1 || runsLen(r.segs) != r.InputLen {
			t.Fatalf("request %d: in %d (prompt %d) out %d", i, r.InputLen, runsLen(r.segs), r.OutputLen)
		}
		if r.Arrival < prev || r.Shared > r.InputLen || len(r.Blocks)*r.BlockTokens > r.InputLen {
			t.Fatalf("request %d: due %v after %v, shared %d, %d blocks of %d in %d", i, r.Arrival, prev, r.Shared, len(r.Blocks), r.BlockTokens, r.InputLen)
		}
		prev = r.Arrival
	}
}

func FuzzParseMooncake(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59]}` + "\n" +
		`{"timestamp": 1013, "input_length": 1024, "output_length": 9, "hash_ids": [46, 60]}`))
	f.Add([]byte(`{"timestamp": 5.5, "input_length": 1, "output_length": 1}` + "\n\n" + `{"timestamp": 1}`))
	f.Add([]byte(`{"timestamp": -1, "input_length": 99999999999, "output_length": 0, "hash_ids": [-3]}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, TraceMooncake, data) })
}

func FuzzParseGeneric(f *testing.F) {
	f.Add([]byte(`{"t_ms": 0, "input_tokens": 812, "output_tokens": 97, "prefix": [7, 8]}` + "\n" +
		`{"t_ms": 250.5, "input_tokens": 700, "output_tokens": 12, "prefix": [7]}`))
	f.Add([]byte(`{"t_ms": 1e300, "input_tokens": 1, "output_tokens": 1}`))
	f.Add([]byte(`[1, 2]`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, TraceGeneric, data) })
}

func FuzzParseAzure(f *testing.F) {
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n"))
	f.Add([]byte("TIMESTAMP,ContextTokens,GeneratedTokens\n2024-05-10 00:00:00.009930+00:00,4808,10\n"))
	f.Add([]byte("\ufeffGeneratedTokens,TIMESTAMP,ContextTokens\n3,2023-11-16 18:15:46,\"5\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, TraceAzure, data) })
}

func FuzzParseBurstGPT(f *testing.F) {
	f.Add([]byte("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n5,ChatGPT,472,18,490,Conversation log\n45,GPT-4,1087,0,1087,API log\n"))
	f.Add([]byte("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n1.5,ChatGPT,10.0,2,12,x\n0,\"a,b\",3\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzTrace(t, TraceBurstGPT, data) })
}
