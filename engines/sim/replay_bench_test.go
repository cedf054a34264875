package sim

import (
	"context"
	"testing"
	"time"

	"github.com/servetune/servetune/internal/cputime"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// BenchmarkReplayTraceHour replays an hour of a 23,608-request trace with
// its prefix hashes (the size of Mooncake's tool & agent trace; the trace
// is synthetic, drawn by writeMooncake) on one simulated config: Qwen2.5-7B,
// vLLM, 8 × H100 as dp = 8. It reports the CPU time of one replay
// (cpu-s/op, user + system of the whole process, which on a shared machine
// is steadier than ns/op) besides the wall time, and the replay's mean
// TTFT and shared-token share to show it ran the whole trace.
//
//	go test ./engines/sim -run '^$' -bench ReplayTraceHour -benchtime 3x
func BenchmarkReplayTraceHour(b *testing.B) {
	p := traceProfile(writeMooncake(b, 23608, time.Hour, 40, 51))
	pl, err := p.Plan()
	if err != nil {
		b.Fatal(err)
	}
	shared, in := 0, 0
	for _, r := range pl.Requests {
		shared += r.Shared
		in += r.InputLen
	}
	cfg := space.Config{"engine": "vllm", "dp": int64(8), "chunked_prefill": int64(8192), "max_running": int64(256)}
	tg := space.Target{Engine: "vllm", Model: "Qwen/Qwen2.5-7B-Instruct", GPU: "H100", GPUs: 8}
	var m bench.Metrics
	cpu0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		recs, dur, err := New().Evaluate(context.Background(), cfg, tg, p, 1)
		if err != nil {
			b.Fatal(err)
		}
		m = bench.Summarize(recs, dur, bench.SummaryOptions{})
	}
	b.StopTimer()
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(m.Completed), "requests")
	b.ReportMetric(m.TTFT.Mean, "ttft-ms")
	b.ReportMetric(float64(shared)/float64(in), "shared-frac")
}
