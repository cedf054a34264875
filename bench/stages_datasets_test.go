package bench_test

import (
	"bufio"
	"context"
	"net"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

// stagedProfiles is one staged profile per dataset kind: stages of 4 req/s
// for 2 s and 10 req/s for 1 s, 18 requests, and no num_prompts.
func stagedProfiles() map[string]bench.Profile {
	stages := []bench.Stage{{Rate: 4, Duration: 2 * time.Second}, {Rate: 10, Duration: time.Second}}
	base := bench.Profile{Seed: 5, Stages: stages, InputLen: 64, OutputLen: 16}
	with := func(f func(p *bench.Profile)) bench.Profile {
		p := base
		f(&p)
		return p
	}
	return map[string]bench.Profile{
		"random":   with(func(p *bench.Profile) { p.Dataset = bench.DatasetRandom; p.PrefixLen = 8 }),
		"sharegpt": with(func(p *bench.Profile) { p.Dataset = bench.DatasetShareGPT; p.InputLen = 0 }),
		"sharegpt (file)": with(func(p *bench.Profile) {
			p.Dataset = bench.DatasetShareGPT
			p.DatasetPath = "testdata/sharegpt_small.json"
			p.InputLen = 0
		}),
		"jsonl": with(func(p *bench.Profile) {
			p.Dataset = bench.DatasetJSONL
			p.DatasetPath = "testdata/prompts.jsonl"
			p.InputLen, p.OutputLen = 0, 0
		}),
		"shared_prefix": with(func(p *bench.Profile) {
			p.Dataset = bench.DatasetSharedPrefix
			p.InputLen, p.OutputLen = 0, 0
			p.SharedPrefix = &bench.SharedPrefix{Groups: 2, UsersPerGroup: 3, SystemPromptLen: 50, QuestionLen: 20, OutputLen: 16}
		}),
	}
}

// A staged profile plans rate × duration requests whatever its dataset
// (issue 50: random, ShareGPT and JSONL planned none), the simulator
// answers every one of them, and the live client sends every one of
// them, each stage's at that stage's rate.
func TestStagedProfileSendsThePlanOfEveryDataset(t *testing.T) {
	for kind, p := range stagedProfiles() {
		t.Run(kind, func(t *testing.T) {
			if p.Count() != 18 {
				t.Fatalf("Count() = %d, want 8 + 10", p.Count())
			}
			pl, err := p.Plan()
			if err != nil {
				t.Fatal(err)
			}
			if len(pl.Requests) != 18 {
				t.Fatalf("planned %d requests, want 18", len(pl.Requests))
			}
			for i, r := range pl.Requests {
				if stage1 := r.Arrival > 2*time.Second; stage1 != (i >= 8) {
					t.Errorf("request %d arrives at %v, outside its stage", i, r.Arrival)
				}
			}
			cfg := space.Config{"engine": "vllm", "max_running": int64(64)}
			tg := space.Target{Engine: "vllm", Model: "Qwen/Qwen2.5-7B-Instruct", GPU: "H100", GPUs: 1}
			recs, _, err := sim.Evaluate(context.Background(), cfg, tg, p, 1)
			if err != nil {
				t.Fatal(err)
			}
			if ok := succeeded(recs); len(recs) != 18 || ok != 18 {
				t.Fatalf("simulator: %d records, %d succeeded, want 18 of 18", len(recs), ok)
			}
			synctest.Test(t, func(t *testing.T) { sendsEveryRequest(t, pl) })
		})
	}
}

func succeeded(recs []bench.Record) int {
	n := 0
	for _, r := range recs {
		if r.Success {
			n++
		}
	}
	return n
}

// sendsEveryRequest runs the plan against a server that answers at once
// and checks that each planned request arrived exactly once.
func sendsEveryRequest(t *testing.T, pl bench.Plan) {
	var mu sync.Mutex
	seen := map[int]int{}
	hc := indexedClient(t, func(i int, conn net.Conn, _ *bufio.Reader) {
		mu.Lock()
		seen[i]++
		mu.Unlock()
		reply(conn, 5*time.Millisecond, 20*time.Millisecond)
	})
	defer hc.CloseIdleConnections()
	res, err := bench.RunPlan(t.Context(), bench.Client{BaseURL: "http://engine", Model: "m", HTTPClient: hc}, pl, bench.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ok := succeeded(res.Records); len(res.Records) != len(pl.Requests) || ok != len(pl.Requests) {
		t.Fatalf("live client: %d records, %d succeeded, want %d of %d", len(res.Records), ok, len(pl.Requests), len(pl.Requests))
	}
	for i := range pl.Requests {
		if seen[i] != 1 {
			t.Errorf("request %d reached the server %d times, want once", i, seen[i])
		}
	}
}
