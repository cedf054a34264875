package report

import (
	"math"
	"testing"

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
