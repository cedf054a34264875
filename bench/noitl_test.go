package bench

import (
	"testing"
	"time"
)

func TestSummarizeNoITLDropsOnlyITL(t *testing.T) {
	recs := []Record{
		{Success: true, InputTokens: 10, OutputTokens: 3, TTFT: 5 * time.Millisecond, Latency: 9 * time.Millisecond, ITL: []time.Duration{2 * time.Millisecond, 2 * time.Millisecond}},
		{Success: true, InputTokens: 10, OutputTokens: 2, Start: time.Millisecond, TTFT: 7 * time.Millisecond, Latency: 10 * time.Millisecond, ITL: []time.Duration{3 * time.Millisecond}},
	}
	full := Summarize(recs, 20*time.Millisecond, SummaryOptions{}).Values()
	fast := Summarize(recs, 20*time.Millisecond, SummaryOptions{NoITL: true}).Values()
	if _, ok := fast["mean_itl_ms"]; ok {
		t.Error("NoITL summary still reports ITL")
	}
	if full["mean_itl_ms"] != 7.0/3 {
		t.Errorf("full mean ITL = %v, want 7/3", full["mean_itl_ms"])
	}
	for k, v := range full {
		if len(k) > 7 && k[len(k)-7:] == "_itl_ms" {
			continue
		}
		if fast[k] != v {
			t.Errorf("%s = %v with NoITL, %v without", k, fast[k], v)
		}
	}
}
