package bench

import (
	"testing"
	"time"
)

// The concurrency peak counts, per whole second from the first start,
// every request whose start-to-end span touches that second (vllm bench's
// definition, peaks): spans are [start, end] in seconds, inclusive.
func TestPeakConcurrencyCountsTouchedSeconds(t *testing.T) {
	s := func(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }
	span := func(from, to float64) Record {
		return Record{Success: true, Start: s(from), Latency: s(to - from), TTFT: s(to - from)}
	}
	cases := []struct {
		name string
		recs []Record
		want float64
	}{
		{"one request", []Record{span(0, 5)}, 1},
		{"a span ends in the second the next starts", []Record{span(0, 2.5), span(2.2, 3), span(3.5, 4)}, 2},
		{"two short ones share a second", []Record{span(0, 0.5), span(0.9, 1.0)}, 2},
		{"the last second counts", []Record{span(0, 3), span(1, 3), span(2.9, 3)}, 3},
		{"disjoint seconds", []Record{span(0, 0.9), span(1, 1.9), span(2, 2.9)}, 1},
		{"a negative latency spans nothing", []Record{span(0, 1), {Success: true, Start: s(0.5), Latency: -s(2)}}, 1},
		{"failed and warm-up requests do not count", []Record{span(0, 1), {Start: 0, Latency: s(1)}, {Success: true, Warmup: true, Latency: s(1)}}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, got := peaks(c.recs); got != c.want {
				t.Errorf("peak concurrency %v, want %v", got, c.want)
			}
		})
	}
}
