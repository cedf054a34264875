package sim

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// writeMooncake writes a synthetic Mooncake trace of n requests over span:
// Poisson arrivals; each prompt opens with one of prefixes shared prompts
// (2 to 10 blocks of 512 tokens: tool and agent instructions) followed by
// its own blocks (23,608 requests of it: mean input 5.7K tokens, mean
// output 181).
func writeMooncake(tb testing.TB, n int, span time.Duration, prefixes int, seed uint64) string {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	shared := make([][]int64, prefixes)
	next := int64(0)
	for i := range shared {
		for range 2 + rng.IntN(9) {
			shared[i] = append(shared[i], next)
			next++
		}
	}
	path := filepath.Join(tb.TempDir(), "mooncake.jsonl")
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	rate := float64(n) / span.Seconds()
	at := 0.0
	for range n {
		at += rng.ExpFloat64() / rate
		h := append([]int64(nil), shared[rng.IntN(prefixes)]...)
		own := int(math.Round(4 * math.Exp(0.8*rng.NormFloat64())))
		for range own {
			h = append(h, next)
			next++
		}
		in := (len(h)-1)*512 + 1 + rng.IntN(512)
		out := 1 + int(120*math.Exp(0.9*rng.NormFloat64()))
		ids := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(h)), ", "), "[]")
		fmt.Fprintf(w, "{\"timestamp\": %d, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [%s]}\n", int64(at*1000), in, min(out, 4096), ids)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

func traceProfile(path string) bench.Profile {
	return bench.Profile{Name: "trace", Dataset: bench.DatasetTrace, DatasetPath: path, Seed: 1}
}

// The block cache serves the trace's shared prompts: with prefix caching
// the simulated TTFT drops by about the share of the prompt cached, and
// the replay keeps the trace's arrival times.
func TestTraceBlocksServeSharedPrefixes(t *testing.T) {
	cfg, tg := qwen7B()
	p := traceProfile(writeMooncake(t, 400, 100*time.Second, 3, 1))
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	ttft := func(cache bool) float64 {
		c := space.Config{}
		for k, v := range cfg {
			c[k] = v
		}
		c["prefix_caching"] = cache
		recs, dur, err := New().Evaluate(context.Background(), c, tg, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range recs {
			if !r.Success || r.Start < pl.Requests[i].Arrival-time.Microsecond {
				t.Fatalf("request %d: ok %v, sent %v before its arrival %v", i, r.Success, r.Start, pl.Requests[i].Arrival)
			}
		}
		return bench.Summarize(recs, dur, bench.SummaryOptions{}).TTFT.Mean
	}
	shared, in := 0, 0
	for _, r := range pl.Requests {
		shared += r.Shared
		in += r.InputLen
	}
	on, off := ttft(true), ttft(false)
	t.Logf("TTFT %.1f ms cached, %.1f ms not; %d of %d prompt tokens shared", on, off, shared, in)
	// About half of the prompt tokens are shared blocks: the prefill left
	// to compute is about half, and TTFT (mostly prefill at 4 req/s) with it.
	if frac := float64(shared) / float64(in); frac < 0.3 || on > off*(1-frac/2) {
		t.Errorf("mean TTFT %.1f ms with prefix caching, %.1f ms without, with %.0f%% of prompt tokens shared", on, off, 100*frac)
	}
}

// blockReq is a request of n blocks of 16 tokens, keys from base on.
func blockReq(keys ...uint64) *simReq {
	r := &simReq{request: request{in: 16*len(keys) + 5, blocks: keys, blockLen: 16}}
	r.prompt = r.in
	return r
}

// The cache's accounting: blocks in use count once in kvUsed however
// many requests share them, released blocks count in the pool, and
// eviction takes the least recently released first, a prompt's tail
// before its head.
func TestBlockCacheAccounting(t *testing.T) {
	var bc blockCache
	a := blockReq(1, 2, 3)
	a.kv = a.in // a computed its whole prompt
	bc.computed(a)
	if a.kv != 5 || a.pinned != 3 || bc.held != 0 {
		t.Fatalf("after a's prefill: kv %d pinned %d held %d, want 5 3 0", a.kv, a.pinned, bc.held)
	}
	b := blockReq(1, 2, 4)
	if got := bc.cachedTokens(b); got != 32 {
		t.Fatalf("b finds %d tokens cached, want 32", got)
	}
	if moved := bc.pin(b, 2); moved != 0 {
		t.Fatalf("pinning blocks a still uses moved %d tokens", moved)
	}
	if moved := bc.release(a); moved != 16 { // block 3 only: 1 and 2 are b's too
		t.Fatalf("a's release moved %d tokens to the pool, want 16", moved)
	}
	if moved := bc.release(b); moved != 32 {
		t.Fatalf("b's release moved %d tokens, want 32", moved)
	}
	if bc.held != 48 {
		t.Fatalf("held %d, want 48", bc.held)
	}
	// Room for 20 tokens of pool: block 3 (released first) goes, then b's
	// tail (block 2), which leaves block 1.
	bc.evict(100, 116)
	if bc.held != 16 || bc.entries[1] == nil || bc.entries[2] != nil || bc.entries[3] != nil {
		t.Fatalf("after eviction: held %d, entries %v", bc.held, bc.entries)
	}
	// A prompt cached whole still computes its last block.
	c := blockReq(1)
	c.prompt = 16
	if got := bc.cachedTokens(c); got != 0 {
		t.Fatalf("a one-block prompt cached whole serves %d tokens, want 0", got)
	}
}
