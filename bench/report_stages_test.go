package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// A multi-stage run's text block ends with each stage's section, over
// that stage's requests only.
func TestWriteTextStages(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		{Index: 0, Start: 0, TTFT: 10 * ms, Latency: 100 * ms, ITL: []time.Duration{90 * ms}, OutputTokens: 2, Success: true},
		{Index: 1, Start: 50 * ms, TTFT: 20 * ms, Latency: 200 * ms, ITL: []time.Duration{180 * ms}, OutputTokens: 2, Success: true},
		{Index: 2, Start: time.Second, TTFT: 30 * ms, Latency: 300 * ms, ITL: []time.Duration{270 * ms}, OutputTokens: 2, Success: true},
		{Index: 3, Start: time.Second, Class: ClassHTTP, Error: "HTTP 500"},
	}
	m := Summarize(recs, 2*time.Second, SummaryOptions{StageStarts: []int{0, 2}})
	var b bytes.Buffer
	if err := WriteText(&b, m, TextOptions{Percentiles: []float64{90}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	_, stages, ok := strings.Cut(out, "- Stage 0 -")
	if !ok {
		t.Fatalf("no stage section:\n%s", out)
	}
	s0, s1, ok := strings.Cut(stages, "- Stage 1 -")
	if !ok {
		t.Fatalf("no stage 1 section:\n%s", out)
	}
	for _, want := range []string{"Successful requests:                     2\n", "Mean TTFT (ms):                          15.00\n", "P90 E2EL (ms):                           190.00\n"} {
		if !strings.Contains(s0, want) {
			t.Errorf("stage 0 lacks %q:\n%s", want, s0)
		}
	}
	for _, want := range []string{"Successful requests:                     1\n", "Failed requests:                         1\n", "Mean TTFT (ms):                          30.00\n"} {
		if !strings.Contains(s1, want) {
			t.Errorf("stage 1 lacks %q:\n%s", want, s1)
		}
	}
}

// Without a successful request the latencies are undefined: n/a, not 0.
func TestWriteTextUndefinedIsNotZero(t *testing.T) {
	m := Summarize([]Record{{Index: 0, Class: ClassConnection, Error: "refused"}}, time.Second, SummaryOptions{})
	var b bytes.Buffer
	if err := WriteText(&b, m, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Mean TTFT (ms):                          n/a\n", "P99 ITL (ms):                            n/a\n", "Mean Latency(s):                          n/a\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("block lacks %q:\n%s", want, b.String())
		}
	}
}
