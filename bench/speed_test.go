package bench

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

var vllmChunk = []byte(`{"id":"cmpl-8f1c2a9e5b7d4c3a","object":"text_completion","created":1767225600,"model":"zai-org/GLM-5.2-FP8","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null}`)

// BenchmarkParseChunk is the per-chunk cost of a vLLM completion chunk
// (target ≤ 1 µs: docs/benchmarks.md).
func BenchmarkParseChunk(b *testing.B) {
	var c chunk
	b.SetBytes(int64(len(vllmChunk)))
	b.ReportAllocs()
	for b.Loop() {
		if err := parseChunk(vllmChunk, &c); err != nil || !c.content {
			b.Fatal(err)
		}
	}
}

// BenchmarkSSEStream adds line splitting: a whole stream of data lines read
// through the SSE reader, per chunk.
func BenchmarkSSEStream(b *testing.B) {
	var stream bytes.Buffer
	const n = 1024
	for range n {
		stream.WriteString("data: ")
		stream.Write(vllmChunk)
		stream.WriteString("\n\n")
	}
	raw := stream.Bytes()
	b.ReportAllocs()
	var c chunk
	for b.Loop() {
		r := newSSEReader(bytes.NewReader(raw), 0)
		for {
			d, err := r.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if err := parseChunk(d, &c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/chunk")
}
