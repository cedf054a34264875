package bench_test

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/bench"
)

// repeat writes head, then piece every interval until the client leaves.
func repeat(conn net.Conn, r *bufio.Reader, head, piece string, every time.Duration) {
	gone := make(chan struct{})
	go func() { _, _ = r.ReadByte(); close(gone) }()
	_, _ = io.WriteString(conn, head)
	for {
		if _, err := io.WriteString(conn, piece); err != nil {
			return
		}
		select {
		case <-gone:
			return
		case <-time.After(every):
		}
	}
}

func TestRequestBound(t *testing.T) {
	cases := []struct {
		name         string
		fixed, stall time.Duration
		out          int
		want         time.Duration
	}{
		{"derived from the output", 0, 2 * time.Minute, 128, 10*time.Minute + 128*time.Second},
		{"default stall", 0, 0, 1000, 10*time.Minute + 1000*time.Second},
		{"short stall, short output", 0, 10 * time.Second, 1, 51 * time.Second},
		{"fixed wins", time.Minute, 2 * time.Minute, 128, time.Minute},
		{"negative: none", -1, 2 * time.Minute, 128, 0},
		{"stall off: none", 0, -1, 128, 0},
		{"no max_tokens", 0, 2 * time.Minute, 0, 10 * time.Minute},
	}
	for _, c := range cases {
		if got := bench.RequestBound(c.fixed, c.stall, c.out); got != c.want {
			t.Errorf("%s: RequestBound(%v, %v, %d) = %v, want %v", c.name, c.fixed, c.stall, c.out, got, c.want)
		}
	}
}

func TestHopeless(t *testing.T) {
	cases := []struct {
		failed, total int
		max           float64
		want          bool
	}{
		{0, 8, 0, false},      // nothing failed yet
		{1, 8, 0, true},       // no failure allowed
		{1, 8, 0.05, true},    // 1 > 0.4
		{1, 100, 0.05, false}, // 1 of 100 may fail...
		{5, 100, 0.05, false}, // ...5 of 100 too (5 > 5 is false, as the judge says)
		{6, 100, 0.05, true},  // 6 cannot pass whatever the other 94 do
		{999, 1000, 0.999, false},
		{1000, 1000, 0.999, true},
	}
	for _, c := range cases {
		if got := bench.Hopeless(c.failed, c.total, c.max); got != c.want {
			t.Errorf("Hopeless(%d, %d, %v) = %v, want %v", c.failed, c.total, c.max, got, c.want)
		}
	}
}

// A server that streams valid chunks forever (it ignores max_tokens) is
// cut as a protocol failure once it passes max_tokens, with default
// options: `servetune bench` ends.
func TestRunCutsAStreamPastMaxTokens(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		hc := pipeClient(func(conn net.Conn, r *bufio.Reader) {
			repeat(conn, r, streamHead, tokenChunk, 10*time.Millisecond)
		})
		defer hc.CloseIdleConnections()
		res, err := bench.Run(t.Context(), bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc},
			bench.Profile{InputLen: 4, OutputLen: 16, NumPrompts: 2}, bench.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Records {
			if r.Success || r.Class != bench.ClassProtocol || !strings.Contains(r.Error, "past max_tokens 16") {
				t.Errorf("record %+v, want a protocol failure past max_tokens", r)
			}
		}
	})
}

// A server that keeps the connection busy with keep-alive comments and
// never sends a token defeats the stall watchdog; the derived per-request
// bound still ends the request, at exactly that bound.
func TestRunBoundsATricklingServer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		hc := pipeClient(func(conn net.Conn, r *bufio.Reader) {
			repeat(conn, r, streamHead, ": ping\n\n", 30*time.Second)
		})
		defer hc.CloseIdleConnections()
		start := time.Now()
		res, err := bench.Run(t.Context(), bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc},
			bench.Profile{InputLen: 4, OutputLen: 8, NumPrompts: 1}, bench.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := bench.RequestBound(0, bench.DefaultStallTimeout, 8)
		if got := time.Since(start); got != want {
			t.Errorf("request ended after %v, want the derived bound %v", got, want)
		}
		if r := res.Records[0]; r.Success || r.Class != bench.ClassTimeout {
			t.Errorf("record %+v, want a timeout", r)
		}
	})
}

// An engine that hangs fails the first wave of requests at the stall
// timeout; with FailFast the run stops there, once the failed fraction can
// no longer pass, instead of waiting a stall timeout for every wave.
func TestRunStopsOnceItCannotPass(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var sent atomic.Int64
		hc := pipeClient(func(conn net.Conn, r *bufio.Reader) {
			sent.Add(1)
			_, _ = r.ReadByte() // hang until the client leaves
		})
		defer hc.CloseIdleConnections()
		start := time.Now()
		res, err := bench.Run(t.Context(), bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc},
			bench.Profile{InputLen: 4, OutputLen: 8, NumPrompts: 8, MaxConcurrency: 2},
			bench.RunOptions{FailFast: true, MaxFailedFraction: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != bench.DefaultStallTimeout {
			t.Errorf("the run took %v, want one stall timeout (%v), not one per wave", got, bench.DefaultStallTimeout)
		}
		if n := sent.Load(); n != 2 || len(res.Records) != 2 {
			t.Errorf("%d requests sent, %d records; want the first wave of 2 only", n, len(res.Records))
		}
		if !strings.Contains(res.Stopped, "max_failed_fraction") {
			t.Errorf("Stopped = %q, want the failed fraction named", res.Stopped)
		}
		if res.Metrics.Failed == 0 {
			t.Errorf("metrics %+v: the stalled requests must count as failed", res.Metrics)
		}
	})
}
