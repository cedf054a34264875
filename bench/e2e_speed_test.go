package bench_test

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/bench/benchtest"
)

// BenchmarkEndToEnd: 512 concurrent streams over loopback against an
// in-process server that streams as fast as it can (one token per chunk,
// flushed per chunk); the figure is output tokens received per second.
func BenchmarkEndToEnd(b *testing.B) {
	srv := benchtest.NewServer(benchtest.Config{})
	defer srv.Close()
	p := bench.Profile{InputLen: 16, OutputLen: 512, NumPrompts: 1024, MaxConcurrency: 512, RequestRate: 0}
	plan, err := p.Plan()
	if err != nil {
		b.Fatal(err)
	}
	c := bench.Client{BaseURL: srv.URL, Model: "m"}
	tokens := 0
	var busy time.Duration
	for b.Loop() {
		res, err := bench.RunPlan(context.Background(), c, plan, bench.RunOptions{})
		if err != nil || res.Metrics.Failed > 0 {
			b.Fatalf("%v %v", err, res.Metrics.Errors)
		}
		tokens += res.Metrics.TotalOutput
		busy += res.Duration
	}
	b.ReportMetric(float64(tokens)/busy.Seconds(), "tok/s")
}

// BenchmarkTimingError: 512 concurrent paced streams (10 ms per token,
// ~50k chunks/s) whose every chunk the server stamps; the figures are the
// client's timing error (TTFT, ITL, latency vs the stamps) at p50 and p99.
func BenchmarkTimingError(b *testing.B) {
	srv := benchtest.NewServer(benchtest.Config{TTFT: 20 * time.Millisecond, ITL: 10 * time.Millisecond, Stamp: true})
	defer srv.Close()
	measureTimingError(b, srv.URL, srv.Stamps)
}

// measureTimingError runs 512 paced streams against the server at url and
// reports the client's timing error against stamps(i), the server's send
// times of request i's content chunks.
func measureTimingError(b *testing.B, url string, stamps func(i int) []time.Time) {
	p := bench.Profile{InputLen: 16, OutputLen: 100, NumPrompts: 512, MaxConcurrency: 512, RequestRate: 5120, Burstiness: math.Inf(1)}
	plan, err := p.Plan()
	if err != nil {
		b.Fatal(err)
	}
	c := bench.Client{BaseURL: url, Model: "m"}
	var errs []time.Duration
	for b.Loop() {
		res, err := bench.RunPlan(context.Background(), c, plan, bench.RunOptions{})
		if err != nil || res.Metrics.Failed > 0 {
			b.Fatalf("%v %v", err, res.Metrics.Errors)
		}
		for _, r := range res.Records {
			st := stamps(r.Index)
			send := res.Start.Add(r.Start)
			errs = append(errs, absd(st[0].Sub(send)-r.TTFT), absd(st[len(st)-1].Sub(send)-r.Latency))
			for i, g := range r.ITL {
				errs = append(errs, absd(st[i+1].Sub(st[i])-g))
			}
		}
	}
	slices.Sort(errs)
	q := func(f float64) float64 { return float64(errs[int(f*float64(len(errs)-1))]) / 1e3 }
	b.ReportMetric(q(0.5), "p50-err-µs")
	b.ReportMetric(q(0.99), "p99-err-µs")
	b.ReportMetric(float64(errs[len(errs)-1])/1e3, "max-err-µs")
}

func absd(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
