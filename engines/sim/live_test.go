package sim

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

var liveTarget = space.Target{Engine: "sglang", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}

// arrival is when a client saw each chunk, and how many tokens it had then.
type arrival struct {
	at     time.Time
	tokens int
}

// collect reads a stream to its end on the (fake) wall clock.
func collect(t *testing.T, st *Stream) []arrival {
	t.Helper()
	var out []arrival
	seen := 0
	for {
		n, done, err := st.Next(context.Background(), seen)
		if err != nil {
			t.Errorf("stream: %v", err)
			return out
		}
		if n > seen {
			out = append(out, arrival{time.Now(), n})
			seen = n
		}
		if done {
			return out
		}
	}
}

func startLive(t *testing.T, cfg space.Config, speed float64) (*Live, context.CancelFunc) {
	t.Helper()
	l, err := New().NewLive(cfg, liveTarget, LiveOptions{Speed: speed})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go l.Run(ctx)
	return l, cancel
}

func within(a, b time.Duration) bool {
	return math.Abs(float64(a-b)) <= float64(2*time.Microsecond)
}

// Online requests submitted together must see exactly the offline
// schedule of the same requests arriving together, divided by the speed.
func TestLiveFollowsTheOfflineScheduleAtSpeed(t *testing.T) {
	cfg := space.Config{"engine": "sglang"}
	p := bench.Profile{Name: "t", InputLen: 600, OutputLen: 6, NumPrompts: 3, RequestRate: math.Inf(1), Seed: 1}
	recs, _, err := New().Evaluate(context.Background(), cfg, liveTarget, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	const speed = 4
	synctest.Test(t, func(t *testing.T) {
		l, cancel := startLive(t, cfg, speed)
		defer cancel()
		t0 := time.Now()
		streams := make([]*Stream, len(recs))
		for i, rec := range recs {
			st, err := l.Submit(context.Background(), LiveRequest{Input: rec.InputTokens, Output: rec.OutputTokens})
			if err != nil {
				t.Fatal(err)
			}
			streams[i] = st
		}
		arrivals := make([][]arrival, len(streams))
		var wg sync.WaitGroup
		for i, st := range streams {
			wg.Go(func() { arrivals[i] = collect(t, st) })
		}
		wg.Wait()
		for i, got := range arrivals {
			rec := recs[i]
			if len(got) == 0 || got[len(got)-1].tokens != rec.OutputTokens {
				t.Fatalf("request %d: arrivals %v, want %d tokens", i, got, rec.OutputTokens)
			}
			if ttft := got[0].at.Sub(t0); !within(ttft, rec.TTFT/speed) {
				t.Errorf("request %d: TTFT %v, want offline %v / %d = %v", i, ttft, rec.TTFT, speed, rec.TTFT/speed)
			}
			if e2e := got[len(got)-1].at.Sub(t0); !within(e2e, rec.Latency/speed) {
				t.Errorf("request %d: latency %v, want %v", i, e2e, rec.Latency/speed)
			}
			if len(got)-1 != len(rec.ITL) {
				t.Fatalf("request %d: %d chunks after the first, offline %d", i, len(got)-1, len(rec.ITL))
			}
			for k, itl := range rec.ITL {
				if d := got[k+1].at.Sub(got[k].at); !within(d, itl/speed) {
					t.Errorf("request %d: ITL %d = %v, want %v", i, k, d, itl/speed)
				}
			}
		}
	})
}

// A request that arrives while another decodes joins the running batch at
// once instead of waiting for it to finish (continuous batching).
func TestLiveLateRequestJoinsTheBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, cancel := startLive(t, space.Config{"engine": "vllm"}, 1)
		defer cancel()
		long, err := l.Submit(context.Background(), LiveRequest{Input: 100, Output: 400})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := long.Next(context.Background(), 10); err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		short, err := l.Submit(context.Background(), LiveRequest{Input: 100, Output: 4})
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, short)
		longEnd := collect(t, long)
		if end := got[len(got)-1].at; !end.Before(longEnd[len(longEnd)-1].at) {
			t.Errorf("the late short request ended at %v, after the long one (%v)", end.Sub(t1), longEnd[len(longEnd)-1].at.Sub(t1))
		}
		if ttft := got[0].at.Sub(t1); ttft > 200*time.Millisecond {
			t.Errorf("late request TTFT %v: it waited instead of joining the batch", ttft)
		}
	})
}

// Closing a stream frees its running slot: with max_running 1 the queued
// request starts right away rather than after the abandoned one.
func TestLiveCloseFreesTheSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, cancel := startLive(t, space.Config{"engine": "sglang", "max_running": int64(1)}, 1)
		defer cancel()
		a, _ := l.Submit(context.Background(), LiveRequest{Input: 100, Output: 5000})
		b, _ := l.Submit(context.Background(), LiveRequest{Input: 100, Output: 2})
		if _, _, err := a.Next(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		t1 := time.Now()
		a.Close()
		got := collect(t, b)
		if d := got[len(got)-1].at.Sub(t1); d > time.Second {
			t.Errorf("queued request finished %v after the close; the closed one still held the slot", d)
		}
	})
}

func TestLiveStopEndsStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, cancel := startLive(t, space.Config{"engine": "sglang"}, 1)
		st, _ := l.Submit(context.Background(), LiveRequest{Input: 100, Output: 10000})
		if _, _, err := st.Next(context.Background(), 0); err != nil {
			t.Fatal(err)
		}
		cancel()
		_, done, err := st.Next(context.Background(), math.MaxInt)
		if !done || !errors.Is(err, ErrStopped) {
			t.Errorf("after stop: done=%v err=%v, want ErrStopped", done, err)
		}
		if _, err := l.Submit(context.Background(), LiveRequest{Input: 1, Output: 1}); !errors.Is(err, ErrStopped) {
			t.Errorf("Submit after stop: %v", err)
		}
	})
}

func TestLiveRefusesTooLong(t *testing.T) {
	l, err := New().NewLive(space.Config{"engine": "sglang"}, liveTarget, LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Submit(context.Background(), LiveRequest{Input: l.MaxLen(), Output: 1}); err == nil {
		t.Error("a request over the maximum length was accepted")
	}
}

func TestNewLiveFailsLikeEvaluate(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "mem_fraction": 0.05}
	_, _, want := New().Evaluate(context.Background(), cfg, liveTarget, bench.Profile{InputLen: 1, OutputLen: 1, NumPrompts: 1}, 1)
	_, got := New().NewLive(cfg, liveTarget, LiveOptions{})
	if want == nil || got == nil || got.Error() != want.Error() {
		t.Errorf("NewLive err %v, Evaluate err %v", got, want)
	}
}
