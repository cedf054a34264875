package samplers

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// A space whose SGLang-only knob has no `when`: the space load makes it
// inactive for vLLM, so no sampler proposes it there (and a vLLM trial
// is never refused for it).
const inactiveSpace = `
[study]
name = "inactive"
sampler = "%s"

[target]
model = "m"
gpus = 8

[[objectives]]
metric = "total_tps"
direction = "maximize"

[params.engine]
values = ["vllm", "sglang"]

[params.enable_dp_attention]
values = [false, true]

[params.max_running]
low = 32
high = 512
log = true
`

func TestSamplersNeverProposeAKnobItsEngineDoesNotTake(t *testing.T) {
	opt := space.Options{
		Engines:  []string{"vllm", "sglang"},
		Supports: func(e, k string) bool { return e == "sglang" || k != "enable_dp_attention" },
		Profile:  bench.Lookup,
		Samples:  200,
	}
	for _, name := range []string{"motpe", "tpe", "random", "cmaes", "grid", "greedy"} {
		t.Run(name, func(t *testing.T) {
			sp, err := space.Parse(context.Background(), "inactive.toml", strings.Replace(inactiveSpace, "%s", name, 1), opt)
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(context.Background(), name, sp, 1, nil, zerolog.Nop(), search.Options{})
			if err != nil {
				t.Fatal(err)
			}
			engines := map[string]bool{}
			for i := range 24 {
				c, err := searchtest.AskOne(s)
				if err == search.ErrExhausted {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				engines[c.Engine()] = true
				if c.Engine() == "vllm" && c.Has("enable_dp_attention") {
					t.Fatalf("trial %d proposes %v", i, c)
				}
				if err := s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: float64(i % 7)}); err != nil {
					t.Fatal(err)
				}
			}
			if !engines["vllm"] {
				t.Errorf("no vLLM config proposed: the test proves nothing")
			}
		})
	}
}
