package fidelity

import (
	"math"
	"strings"
	"testing"

	"github.com/servetune/servetune/engines/sim"
)

// runWithITL is oneRun (Qwen2.5-7B, 100 output tokens, e2e 800 ms, TTFT
// 30 ms) with the summary's mean ITL set: 7.7 ms is one chunk per token,
// 10 ms 1.29 tokens per chunk.
func runWithITL(t *testing.T, id, itl string) Run {
	t.Helper()
	js := strings.Replace(oneRun, `"summary": {"e2e_mean": 800, "ttft_mean": 30, "itl_mean": 7.5}`,
		`"summary": {"e2e_mean": 800, "ttft_mean": 30, "itl_mean": `+itl+`}`, 1)
	js = strings.Replace(js, `"id": "a"`, `"id": "`+id+`"`, 1)
	f, err := Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return f.Runs[0]
}

func TestTokensPerChunkIsMeasuredOnTheGivenRuns(t *testing.T) {
	cards := sim.DefaultCards()
	m, err := cards.Model("Qwen/Qwen2.5-7B-Instruct")
	if err != nil {
		t.Fatal(err)
	}
	coalescing, plain := runWithITL(t, "c", "10"), runWithITL(t, "p", "7.8")
	all := []Run{coalescing, plain}
	want := 10 * 99 / 770.0
	if got := TokensPerChunk(cards, []Run{coalescing}, all)[m.Name]; math.Abs(got-want) > 1e-9 {
		t.Errorf("one coalescing run: %v, want %v", got, want)
	}
	if got, ok := TokensPerChunk(cards, []Run{plain}, all)[m.Name]; !ok || got != 0 {
		t.Errorf("a ratio under 1.1 is one chunk per token: %v (present %v)", got, ok)
	}
	// The held-out run's own measurement never reaches its prediction.
	if got, ok := TokensPerChunk(cards, nil, all)[m.Name]; !ok || got != 0 {
		t.Errorf("no training run of the model: %v (present %v), want 0", got, ok)
	}
}

func TestSolveStopsAtTheUpperBound(t *testing.T) {
	// One row asks for linear = 10 (a·c = 1 with a = 0.1); the bound is 3.
	var rw row
	rw.a[sim.FeatureIndex("linear")] = 0.1
	rw.w = 1
	c := solve([]row{rw}, sim.PriorVLLM(), 0.02)
	if got, ub := c[sim.FeatureIndex("linear")], sim.Upper(sim.FeatureIndex("linear")); got != ub {
		t.Errorf("linear %v, want it pinned at its upper bound %v", got, ub)
	}
}
