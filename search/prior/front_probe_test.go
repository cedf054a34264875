package prior

import (
	"context"
	"slices"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

func TestCardsOff(t *testing.T) {
	cases := []struct {
		name  string
		means []float64
		n     int
		want  bool
	}{
		{"too few trials to judge", []float64{-0.8, 0.7}, engineProbeAfter - 1, false},
		{"within noise", []float64{0.05, -0.1}, 10, false},
		{"throughput off", []float64{-0.75, 0.02}, engineProbeAfter, true},
		{"latency off", []float64{0.01, 0.7}, engineProbeAfter + 2, true},
		{"at the tolerance: not beyond", []float64{errTolerance, -errTolerance}, 5, false},
	}
	for _, c := range cases {
		if got := cardsOff(c.means, c.n); got != c.want {
			t.Errorf("%s: cardsOff(%v, %d) = %v, want %v", c.name, c.means, c.n, got, c.want)
		}
	}
}

func TestUnprobed(t *testing.T) {
	vals := []string{"sglang", "vllm", "trtllm"}
	cases := []struct {
		name              string
		completed, picked map[string]int
		want              []string
	}{
		{"none measured", nil, nil, vals},
		{"one engine measured", map[string]int{"sglang": 4}, map[string]int{"sglang": 4}, []string{"vllm", "trtllm"}},
		{"a pick that ran out of memory: once more", map[string]int{"sglang": 4}, map[string]int{"vllm": 1}, []string{"vllm", "trtllm"}},
		{"engineProbeTries picks failed: left to the sampler", map[string]int{"sglang": 4}, map[string]int{"vllm": engineProbeTries}, []string{"trtllm"}},
		{"measured by the sampler", map[string]int{"sglang": 4, "vllm": 1, "trtllm": 1}, nil, nil},
	}
	for _, c := range cases {
		got := unprobed(vals, c.completed, c.picked)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// twoEngineSpace has two engines and one batch knob n (1..16), throughput up
// and latency down.
func twoEngineSpace() *space.Space {
	return &space.Space{
		Study:      space.Study{Name: "e", Sampler: "random", NTrials: 20},
		Target:     space.Target{GPUs: 1},
		Objectives: []space.Objective{maxObj("tps"), minObj("tpot")},
		Params: []space.Param{
			{Name: "engine", Kind: space.Categorical, Values: []any{"sglang", "vllm"}},
			{Name: "n", Kind: space.Int, Low: 1, High: 16},
		},
	}
}

// twoEnginePrior predicts every vllm config dominated by an sglang one:
// sglang (100n, 10n), vllm (60n, 12n).
func twoEnginePrior(c space.Config) ([]float64, bool) {
	n, _ := c.Int("n")
	if c["engine"] == "vllm" {
		return []float64{60 * float64(n), 12 * float64(n)}, true
	}
	return []float64{100 * float64(n), 10 * float64(n)}, true
}

// A two-objective study whose trials all ran sglang, measured at 0.4 of
// the cards' throughput and twice their latency: the prior's next pick is
// a vllm config, which the cards rank below every sglang one but no trial
// has measured (main corrected vllm by sglang's miss, found it dominated,
// and kept to sglang). With the cards right, it keeps to sglang.
func TestPriorProbesAnEngineNoTrialMeasured(t *testing.T) {
	for _, c := range []struct {
		name               string
		tpsScale, tpotScal float64
		want               string
	}{
		{"cards off: probe vllm", 0.4, 2, "vllm"},
		{"cards right: no probe", 1, 1, "sglang"},
	} {
		s := newPriorSampler(t, twoEngineSpace(), priorFunc(twoEnginePrior)).(*sampler)
		ctx := context.Background()
		for n := int64(1); n <= engineProbeAfter; n++ {
			cfg := space.Config{"engine": "sglang", "n": n}
			v, _ := twoEnginePrior(cfg)
			v = []float64{v[0] * c.tpsScale, v[1] * c.tpotScal}
			s.st.note(ctx, cfg, "prior")
			if err := s.Tell(ctx, search.Observation{Config: cfg, State: search.Complete, Value: v[0], Values: v}); err != nil {
				t.Fatal(err)
			}
		}
		s.st.picks = len(s.st.sp.Objectives) // past the front's ends
		pickerOf(s).prepare(ctx)
		got, ok := pickerOf(s).pick(nil)
		if !ok || got["engine"] != c.want {
			t.Errorf("%s: picked %v (%v), want engine %s", c.name, got, ok, c.want)
		}
	}
}

// The probe is the engine's best predicted config on the first objective.
func TestProbePicksTheEnginesBestThroughput(t *testing.T) {
	s := newPriorSampler(t, twoEngineSpace(), priorFunc(twoEnginePrior)).(*sampler)
	ctx := context.Background()
	for n := int64(1); n <= engineProbeAfter; n++ {
		cfg := space.Config{"engine": "sglang", "n": n}
		if err := s.Tell(ctx, search.Observation{Config: cfg, State: search.Complete, Value: 40 * float64(n), Values: []float64{40 * float64(n), 20 * float64(n)}}); err != nil {
			t.Fatal(err)
		}
	}
	pickerOf(s).prepare(ctx)
	got, ok := pickerOf(s).engines.pick(nil)
	if n, _ := got.Int("n"); !ok || got["engine"] != "vllm" || n != 16 {
		t.Errorf("probe %v (%v), want vllm n=16", got, ok)
	}
}
