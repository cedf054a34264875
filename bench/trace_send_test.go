package bench_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/bench/benchtest"
)

// BenchmarkTraceSendError replays a trace against the in-process server
// and measures how late each request is sent (Record.Start, stamped after
// its body is built, just before the HTTP call) against its scheduled
// time: 3,000 requests over 30 s, Poisson at 100 req/s, prompts of 1 to 16
// blocks of 512 tokens with shared leading blocks, 32-token replies. The
// goal (issue 51) is p99 within 1 ms; send-p99-ms and send-max-ms report
// it, within-1ms the share of requests that made it.
//
//	go test ./bench -run '^$' -bench TraceSendError -benchtime 1x
func BenchmarkTraceSendError(b *testing.B) {
	path := writeSendTrace(b, 3000, 100)
	p := bench.Profile{Name: "trace", Dataset: bench.DatasetTrace, DatasetPath: path, Seed: 1}
	plan, err := p.Plan()
	if err != nil {
		b.Fatal(err)
	}
	srv := benchtest.NewServer(benchtest.Config{TTFT: 5 * time.Millisecond, ITL: time.Millisecond})
	defer srv.Close()
	c := bench.Client{BaseURL: srv.URL, Model: "m"}
	var late []time.Duration
	for b.Loop() {
		res, err := bench.RunPlan(context.Background(), c, plan, bench.RunOptions{})
		if err != nil || res.Metrics.Failed > 0 || len(res.Records) != len(plan.Requests) {
			b.Fatalf("run: %v, %d failed, %d records", err, res.Metrics.Failed, len(res.Records))
		}
		for _, r := range res.Records {
			late = append(late, r.Start-plan.Requests[r.Index].Arrival)
		}
	}
	reportLateness(b, late)
}

// reportLateness reports the send lateness's p50, p99 and max in ms and
// the share of requests sent within 1 ms of their time.
func reportLateness(b *testing.B, late []time.Duration) {
	slices.Sort(late)
	within := 0
	for _, d := range late {
		if d <= time.Millisecond {
			within++
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(late[len(late)/2]), "send-p50-ms")
	b.ReportMetric(ms(late[len(late)*99/100]), "send-p99-ms")
	b.ReportMetric(ms(late[len(late)-1]), "send-max-ms")
	b.ReportMetric(float64(within)/float64(len(late)), "within-1ms")
}

// writeSendTrace writes a Mooncake trace of n Poisson arrivals at rate.
func writeSendTrace(b *testing.B, n int, rate float64) string {
	rng := rand.New(rand.NewPCG(7, 7))
	var sb strings.Builder
	at, next := 0.0, 100
	for range n {
		at += rng.ExpFloat64() / rate
		blocks := 1 + rng.IntN(16)
		ids := []string{fmt.Sprint(rng.IntN(4))} // one of four shared first blocks
		for range blocks - 1 {
			ids = append(ids, fmt.Sprint(next))
			next++
		}
		fmt.Fprintf(&sb, "{\"timestamp\": %.3f, \"input_length\": %d, \"output_length\": 32, \"hash_ids\": [%s]}\n",
			at*1000, blocks*512, strings.Join(ids, ", "))
	}
	path := filepath.Join(b.TempDir(), "send.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkTraceSendFloor is the same schedule with nothing sent: each
// request's goroutine only reads the clock when woken. It is this
// machine's timer and scheduler latency at the moment, the floor under
// BenchmarkTraceSendError's figure (run them together to compare).
//
//	go test ./bench -run '^$' -bench 'TraceSend' -benchtime 1x
func BenchmarkTraceSendFloor(b *testing.B) {
	path := writeSendTrace(b, 3000, 100)
	p := bench.Profile{Name: "trace", Dataset: bench.DatasetTrace, DatasetPath: path, Seed: 1}
	plan, err := p.Plan()
	if err != nil {
		b.Fatal(err)
	}
	var late []time.Duration
	for b.Loop() {
		start := time.Now()
		timer := time.NewTimer(time.Hour)
		for _, r := range plan.Requests {
			if wait := time.Until(start.Add(r.Arrival)); wait > 0 {
				timer.Reset(wait)
				<-timer.C
			}
			late = append(late, time.Since(start)-r.Arrival)
		}
		timer.Stop()
	}
	reportLateness(b, late)
}
