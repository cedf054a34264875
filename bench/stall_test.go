package bench_test

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/bench"
)

// pipeClient is an HTTP client whose every connection is a net.Pipe to a
// goroutine running serve, so a test can run in a synctest bubble.
func pipeClient(serve func(conn net.Conn, r *bufio.Reader)) *http.Client {
	return &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) {
			client, server := net.Pipe()
			go func() {
				defer server.Close()
				r := bufio.NewReader(server)
				req, err := http.ReadRequest(r)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				serve(server, r)
			}()
			return client, nil
		},
	}}
}

const streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"

const tokenChunk = "data: {\"choices\":[{\"text\":\"x\"}]}\n\n"

// stallCase scripts a server that sends the pieces of a response with
// waits between them (a wait before the first piece delays the headers);
// unless the request is to succeed, it then holds the connection open
// until the client leaves.
type stallCase struct {
	name    string
	stall   time.Duration // RunOptions.StallTimeout
	script  []any         // string: write it; time.Duration: wait
	ok      bool
	elapsed time.Duration // from send to the record, on the bubble's clock
}

func TestRunStallTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []stallCase{
		{name: "never answers", script: nil, elapsed: bench.DefaultStallTimeout},
		{name: "headers then silence", script: []any{time.Minute, streamHead}, elapsed: time.Minute + bench.DefaultStallTimeout},
		{name: "silent after a chunk", stall: 10 * time.Second,
			script: []any{streamHead, 5 * time.Second, tokenChunk}, elapsed: 15 * time.Second},
		{name: "slow but never silent for long", stall: time.Minute,
			script: []any{50 * time.Second, streamHead, 50 * time.Second, tokenChunk, 50 * time.Second, tokenChunk,
				50 * time.Second, "data: [DONE]\n\n"}, ok: true, elapsed: 200 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { checkStall(t, tc) })
		})
	}
}

func checkStall(t *testing.T, tc stallCase) {
	hc := pipeClient(func(conn net.Conn, r *bufio.Reader) {
		for _, step := range tc.script {
			switch s := step.(type) {
			case time.Duration:
				time.Sleep(s)
			case string:
				if _, err := io.WriteString(conn, s); err != nil {
					return
				}
			}
		}
		if !tc.ok {
			_, _ = r.ReadByte() // hold the connection until the client closes it
		}
	})
	defer hc.CloseIdleConnections()
	start := time.Now()
	res, err := bench.Run(t.Context(), bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc},
		bench.Profile{InputLen: 4, OutputLen: 2, NumPrompts: 1}, bench.RunOptions{StallTimeout: tc.stall})
	if err != nil {
		t.Fatal(err)
	}
	if got := time.Since(start); got != tc.elapsed {
		t.Errorf("request ended after %v, want %v", got, tc.elapsed)
	}
	r := res.Records[0]
	if tc.ok {
		if !r.Success {
			t.Errorf("record %+v, want success", r)
		}
		return
	}
	stall := cmp.Or(tc.stall, bench.DefaultStallTimeout)
	if want := fmt.Sprintf("request stalled: no byte received for %v", stall); r.Success || r.Class != bench.ClassTimeout || r.Error != want {
		t.Errorf("record %+v, want class timeout and %q", r, want)
	}
}

// A negative StallTimeout turns detection off: a slow answer is waited for.
func TestRunStallTimeoutDisabled(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		checkStall(t, stallCase{stall: -1, script: []any{time.Hour, streamHead, tokenChunk, "data: [DONE]\n\n"}, ok: true, elapsed: time.Hour})
	})
}
