package bench

import (
	"strings"
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

// NoPeaks drops the two peak metrics and nothing else; records without
// gaps then summarise to the same values (what the simulator prior's
// gapless records rely on).
func TestSummarizeNoPeaksDropsOnlyPeaks(t *testing.T) {
	recs := []Record{
		{Success: true, InputTokens: 10, OutputTokens: 3, TTFT: 5 * time.Millisecond, Latency: 9 * time.Millisecond, ITL: []time.Duration{2 * time.Millisecond, 2 * time.Millisecond}},
		{Success: true, InputTokens: 10, OutputTokens: 2, Start: time.Millisecond, TTFT: 7 * time.Millisecond, Latency: 10 * time.Millisecond, ITL: []time.Duration{3 * time.Millisecond}},
	}
	full := Summarize(recs, 20*time.Millisecond, SummaryOptions{}).Values()
	if full["peak_output_tps"] != 5 {
		t.Fatalf("full peak output = %v, want 5", full["peak_output_tps"])
	}
	gapless := append([]Record(nil), recs...)
	for i := range gapless {
		gapless[i].ITL = nil
	}
	fast := Summarize(gapless, 20*time.Millisecond, SummaryOptions{NoITL: true, NoPeaks: true}).Values()
	for _, k := range []string{"peak_output_tps", "peak_concurrency", "mean_itl_ms"} {
		if _, ok := fast[k]; ok {
			t.Errorf("%s reported without peaks or gaps", k)
		}
	}
	for k, v := range full {
		if k == "peak_output_tps" || k == "peak_concurrency" || strings.HasSuffix(k, "_itl_ms") {
			continue
		}
		if got, ok := fast[k]; !ok || got != v {
			t.Errorf("%s = %v (%v) without peaks or gaps, %v with", k, got, ok, v)
		}
	}
}
