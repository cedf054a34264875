package sim

import (
	"context"
	"testing"
	"time"

	"github.com/servetune/servetune/internal/cputime"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// traceHour is an hour of a production trace at its rate and size: the
// 23,608 requests of the published anchors (DynoSim, BLIS) arriving as a
// Poisson process, with production-like lengths (mean ~1.5K prompt
// tokens, ~250 reply tokens, spread ±50%).
func traceHour() bench.Profile {
	return bench.Profile{Name: "trace-hour", Dataset: "random", InputLen: 1500, OutputLen: 250, RangeRatio: 0.5,
		NumPrompts: 23608, RequestRate: 23608.0 / 3600, Seed: 1}
}

// simulate runs cfg on p once and returns the simulated duration.
func simulate(b *testing.B, cfg space.Config, p bench.Profile) time.Duration {
	recs, dur, err := Evaluate(context.Background(), cfg, glmTarget, p, 1)
	if err != nil {
		b.Fatal(err)
	}
	if m := bench.Summarize(recs, dur, bench.SummaryOptions{}); m.Completed != len(recs) {
		b.Fatalf("%d of %d requests completed", m.Completed, len(recs))
	}
	return dur
}

// BenchmarkTraceHour is issue 49's simulator speed target: an hour of
// a 23,608-request production trace, ≥ 1,500 simulated seconds per CPU
// second (the published anchor's ≈ 1,500× real time), summary included.
func BenchmarkTraceHour(b *testing.B) {
	cfg := space.Config{"engine": "vllm", "tp": int64(8)}
	var simulated, cpu time.Duration
	for b.Loop() {
		c0 := cputime.Process()
		simulated += simulate(b, cfg, traceHour())
		cpu += cputime.Process() - c0
	}
	b.ReportMetric(simulated.Seconds()/cpu.Seconds(), "sim-s/cpu-s")
	b.ReportMetric(cputime.PeakRSSMB(), "peak-RSS-MB")
}

// scaled is a closed-loop benchmark of n requests at concurrency conc
// (1K prompt, 200 reply tokens).
func scaled(n, conc int) bench.Profile {
	return bench.Profile{Name: "scaled", Dataset: "random", InputLen: 1000, OutputLen: 200, RangeRatio: 0.5,
		NumPrompts: n, MaxConcurrency: conc, RequestRate: 0, Seed: 1}
}

// BenchmarkSixteenfold is issue 49's scaling target: 16× the requests at
// 16× the concurrency (16,000 at 8,192 against 1,000 at 512) must cost
// ≤ 20× the CPU — the simulator's cost following the tokens, not
// requests × concurrency — with peak RSS ≤ 200 MB (run it alone:
// ru_maxrss is the process's).
func BenchmarkSixteenfold(b *testing.B) {
	cfg := space.Config{"engine": "vllm", "tp": int64(8)}
	var small, big time.Duration
	for b.Loop() {
		c0 := cputime.Process()
		simulate(b, cfg, scaled(1000, 512))
		c1 := cputime.Process()
		simulate(b, cfg, scaled(16000, 8192))
		small += c1 - c0
		big += cputime.Process() - c1
	}
	b.ReportMetric(big.Seconds()/small.Seconds(), "cost-ratio")
	b.ReportMetric(big.Seconds()/float64(b.N), "cpu-s/16x")
	b.ReportMetric(cputime.PeakRSSMB(), "peak-RSS-MB")
}
