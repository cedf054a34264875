package bench_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// indexedClient is pipeClient that tells serve which request of the plan
// it answers (the client's request-id header).
func indexedClient(t *testing.T, serve func(i int, conn net.Conn, r *bufio.Reader)) *http.Client {
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
				i, err := strconv.Atoi(req.Header.Get("X-Servetune-Request"))
				if err != nil {
					t.Errorf("request without its plan index: %v", err)
					return
				}
				serve(i, server, r)
			}()
			return client, nil
		},
	}}
}

// reply streams two content chunks, the first after ttft and the last at
// latency from the request's arrival, then [DONE].
func reply(conn net.Conn, ttft, latency time.Duration) {
	time.Sleep(ttft)
	_, _ = io.WriteString(conn, streamHead+tokenChunk)
	time.Sleep(latency - ttft)
	_, _ = io.WriteString(conn, tokenChunk+"data: [DONE]\n\n")
}

func multiTurn(users, rounds int, rate float64, conc int) bench.Profile {
	n := users * rounds
	return bench.Profile{Dataset: bench.DatasetSharedPrefix, Seed: 3, MaxConcurrency: conc,
		SharedPrefix: &bench.SharedPrefix{Groups: 2, UsersPerGroup: users / 2, SystemPromptLen: 100, QuestionLen: 200,
			OutputLen: 60, MultiTurn: true, MaxModelLen: 4096},
		Stages: []bench.Stage{{Rate: rate, Duration: time.Duration(float64(n) / rate * float64(time.Second))}}}
}

// The live client sends a multi-turn plan as the simulator does: a server
// that answers each request with the simulator's latencies for it sees
// every request at the simulator's send time, never two rounds of one
// user at once and never a round before the one it continues ended.
func TestLiveClientSendsTheSimulatorsSchedule(t *testing.T) {
	for _, conc := range []int{0, 3} {
		t.Run("max_concurrency="+strconv.Itoa(conc), func(t *testing.T) {
			p := multiTurn(4, 10, 20, conc) // a user's rounds due every 0.2 s, each takes longer
			pl, err := p.Plan()
			if err != nil {
				t.Fatal(err)
			}
			cfg := space.Config{"engine": "vllm", "chunked_prefill": int64(2048), "max_running": int64(128)}
			tg := space.Target{Engine: "vllm", Model: "Qwen/Qwen2.5-7B-Instruct", GPU: "H100", GPUs: 1}
			want, _, err := sim.Evaluate(context.Background(), cfg, tg, p, 1)
			if err != nil {
				t.Fatal(err)
			}
			synctest.Test(t, func(t *testing.T) { replaySim(t, pl, want) })
		})
	}
}

func replaySim(t *testing.T, pl bench.Plan, want []bench.Record) {
	var mu sync.Mutex
	busy := map[int]int{} // session → request in flight
	ended := map[int]bool{}
	hc := indexedClient(t, func(i int, conn net.Conn, _ *bufio.Reader) {
		r := pl.Requests[i]
		mu.Lock()
		if j, ok := busy[r.Session]; ok {
			t.Errorf("request %d (user %d round %d) sent while request %d of the same user is in flight", i, r.Session, r.Round, j)
		}
		if r.After >= 0 && !ended[r.After] {
			t.Errorf("request %d sent before request %d, the round it continues, ended", i, r.After)
		}
		busy[r.Session] = i
		mu.Unlock()
		reply(conn, want[i].TTFT, want[i].Latency)
		mu.Lock()
		delete(busy, r.Session)
		ended[i] = true
		mu.Unlock()
	})
	defer hc.CloseIdleConnections()
	res, err := bench.RunPlan(t.Context(), bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc}, pl, bench.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != len(want) {
		t.Fatalf("%d records, want the simulator's %d", len(res.Records), len(want))
	}
	held := 0
	for i, got := range res.Records {
		if d := got.Start - want[i].Start; !got.Success || d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("request %d sent at %v (ok %v), the simulator sent it at %v", i, got.Start, got.Success, want[i].Start)
		}
		if got.Start > pl.Requests[i].Arrival+time.Millisecond {
			held++
		}
	}
	if held < len(want)/2 {
		t.Errorf("only %d of %d requests were held: the case does not test the session lock", held, len(want))
	}
}

// A round whose predecessor times out is sent when the timeout fails it,
// as inference-perf's failure path releases the session.
func TestLiveClientTimedOutRoundReleasesTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pl, err := multiTurn(2, 2, 10, 0).Plan() // all four due within 0.4 s
		if err != nil {
			t.Fatal(err)
		}
		hc := indexedClient(t, func(i int, conn net.Conn, r *bufio.Reader) {
			if i == 0 {
				_, _ = r.ReadByte() // never answers: the stall timeout ends it
				return
			}
			reply(conn, time.Second, 2*time.Second)
		})
		defer hc.CloseIdleConnections()
		res, err := bench.RunPlan(t.Context(), bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc}, pl,
			bench.RunOptions{StallTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		next := -1
		for i, r := range pl.Requests {
			if r.After == 0 {
				next = i
			}
		}
		if next < 0 {
			t.Fatal("no request continues request 0")
		}
		first, second := res.Records[0], res.Records[next]
		if first.Class != bench.ClassTimeout || !second.Success || second.Start != first.Start+10*time.Second {
			t.Errorf("round 0: %s %q; round 1: ok %v sent at %v; want a timeout, then round 1 sent when it fired (%v)",
				first.Class, first.Error, second.Success, second.Start, first.Start+10*time.Second)
		}
	})
}

// With no request bound at all, a run held behind a server that never
// answers still ends at cancellation, at once, without sending the held
// rounds.
func TestLiveClientCancelEndsHeldRounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pl, err := multiTurn(2, 3, 10, 0).Plan()
		if err != nil {
			t.Fatal(err)
		}
		hc := indexedClient(t, func(_ int, _ net.Conn, r *bufio.Reader) { _, _ = r.ReadByte() })
		defer hc.CloseIdleConnections()
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Minute, cancel)
		start := time.Now()
		res, err := bench.RunPlan(ctx, bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc}, pl,
			bench.RunOptions{StallTimeout: -1, RequestTimeout: -1})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want the cancellation", err)
		}
		if took := time.Since(start); took != time.Minute {
			t.Errorf("returned %v after the start, want at the cancel (1m)", took)
		}
		if len(res.Records) != 2 {
			t.Errorf("%d records, want the two first rounds only (the rest were held, never sent)", len(res.Records))
		}
		for _, r := range res.Records {
			if r.Class != bench.ClassAborted {
				t.Errorf("request %d: %s, want aborted", r.Index, r.Class)
			}
		}
	})
}
