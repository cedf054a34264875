package report

import (
	"math"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func TestWorkloadDescribesTheLoad(t *testing.T) {
	cases := []struct {
		p    bench.Profile
		want string
	}{
		{bench.Profile{InputLen: 8192, OutputLen: 1024, NumPrompts: 1000, RequestRate: math.Inf(1), MaxConcurrency: 256},
			"random, 8K in / 1K out, 1000 prompts, all at once (rate inf), concurrency 256"},
		{bench.Profile{Dataset: "sharegpt", NumPrompts: 500, RequestRate: 4}, "sharegpt, 500 prompts, rate 4 req/s"},
		{bench.Profile{InputLen: 1000, OutputLen: 200, PrefixLen: 2048, RequestRate: 2.5}, "random, 1000 in / 200 out, 2K shared prefix, rate 2.5 req/s"},
		// The builtin sharegpt profile's rate sends its 1000 prompts within a second.
		{bench.Profile{Dataset: "sharegpt", NumPrompts: 1000, RequestRate: 1000, MaxConcurrency: 512},
			"sharegpt, 1000 prompts, all at once (rate 1000 req/s: every arrival within 1s), concurrency 512"},
		{bench.Profile{Dataset: "jsonl", DatasetPath: "/data/prompts.jsonl", NumPrompts: 50, RequestRate: 1}, "jsonl (prompts.jsonl), 50 prompts, rate 1 req/s"},
		{bench.Profile{Dataset: "shared_prefix", SharedPrefix: &bench.SharedPrefix{Groups: 4, UsersPerGroup: 8, SystemPromptLen: 2048, QuestionLen: 256, OutputLen: 128, MultiTurn: true},
			Stages: []bench.Stage{{Rate: 4, Duration: time.Minute}, {Rate: 10, Duration: 30 * time.Second}}},
			"shared_prefix, 4 system prompts × 8 users, 2K-token system prompt, 256-token questions, 128 out, multi-turn, 540 requests in 2 stages (stage 0: 4 req/s for 1m0s; stage 1: 10 req/s for 30s)"},
		{bench.Profile{InputLen: 512, OutputLen: 128, NumPrompts: 100, SearchRate: &bench.RateSearch{Attainment: 0.99, Low: 0.5, High: 64}},
			"random, 512 in / 128 out, 100 prompts, highest rate in [0.5, 64] req/s with 99% of requests within the SLO"},
	}
	for _, c := range cases {
		if got := workload(c.p); got != c.want {
			t.Errorf("workload(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
}

// A version the target does not pin is the one the engine reported in
// the fingerprints of the trials that ran it, the most frequent one.
func TestEngineVersionFromTheFingerprint(t *testing.T) {
	sp := fixtureSpaceOf(t)
	fp := func(v string) *engines.Fingerprint { return &engines.Fingerprint{Engine: "vllm", EngineVersion: v} }
	trials := []store.Trial{
		{Number: 1, Config: space.Config{"engine": "vllm"}, Fingerprint: fp("0.15.1")},
		{Number: 2, Config: space.Config{"engine": "vllm"}, Fingerprint: fp("0.15.1")},
		{Number: 3, Config: space.Config{"engine": "vllm"}, Fingerprint: fp("0.14.0")},
		{Number: 4, Config: space.Config{"engine": "sglang"}, Fingerprint: &engines.Fingerprint{Engine: "sglang", EngineVersion: "0.9"}},
	}
	e := environment(sp, trials, Meta{})
	want := []EngineVersion{{Engine: "sglang", Version: "0.5.2"}, {Engine: "vllm", Version: "0.15.1", Reported: true}}
	if len(e.Engines) != 2 || e.Engines[0] != want[0] || e.Engines[1] != want[1] {
		t.Errorf("engines %+v, want %+v (sglang pinned by the target, vllm as reported)", e.Engines, want)
	}
}
