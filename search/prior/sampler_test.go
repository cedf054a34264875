package prior

import (
	"context"
	"math"
	"math/rand"
	"testing"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// priorSpace is a 6×6 grid with one objective y = a + b (maximised) and
// an out-of-memory wall at a + b > 8.
func priorSpace() *space.Space {
	return &space.Space{
		Study:      space.Study{Name: "p", Sampler: "random", NTrials: 36},
		Target:     space.Target{Engine: "vllm", GPUs: 1},
		Objectives: []space.Objective{maxObj("y")},
		Params: []space.Param{
			{Name: "a", Kind: space.Int, Low: 1, High: 6},
			{Name: "b", Kind: space.Int, Low: 1, High: 6},
		},
	}
}

func truth(c space.Config) float64 {
	a, _ := c.Int("a")
	b, _ := c.Int("b")
	return float64(a + b)
}

type priorFunc func(space.Config) ([]float64, bool)

func (f priorFunc) Predict(_ context.Context, c space.Config) ([]float64, bool) { return f(c) }

func observe(c space.Config, wall float64) search.Observation {
	if y := truth(c); y <= wall {
		return search.Observation{Config: c, State: search.Complete, Value: y, Values: []float64{y}}
	}
	return search.Observation{Config: c, State: search.Infeasible, Class: "oom", Value: math.NaN()}
}

func newPriorSampler(t *testing.T, sp *space.Space, p search.Prior) search.Sampler {
	t.Helper()
	s, err := New(context.Background(), newInner(t, sp, 7, true), sp, p, 7)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newInner is the random sampler the prior's tests wrap, seeded, with
// or without the feasibility model, built as samplers.New builds
// "random" (the prior imports no sampler family, nor their registry).
func newInner(t *testing.T, sp *space.Space, seed int64, feasibility bool) search.Sampler {
	t.Helper()
	b := search.NewBuild(sp, seed, zerolog.Nop(), feasibility)
	return search.NewGuard(b, randomModel{sp: sp, rng: b.Rand})
}

// randomModel is modelfree's random model: seeded uniform draws.
type randomModel struct {
	sp  *space.Space
	rng *rand.Rand
}

func (r randomModel) Draw() (space.Config, error) { return r.sp.Sample(r.rng), nil }

func (randomModel) Reject(space.Config, bool) {}

func (randomModel) Learn(search.Observation) error { return nil }

func maxObj(m string) space.Objective { return space.Objective{Metric: m, Direction: space.Maximize} }
func minObj(m string) space.Objective { return space.Objective{Metric: m, Direction: space.Minimize} }

// askOne asks for one config, as a study with one worker does.
func askOne(s search.Sampler) (space.Config, error) {
	cs, err := s.Ask(context.Background(), 1, nil)
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// pickerOf, innerOf and probeOf are s's pipeline stages.
func pickerOf(s *sampler) *picker       { return stage[*picker](s) }
func innerOf(s *sampler) *innerProposer { return stage[*innerProposer](s) }
func probeOf(s *sampler) *memoryProbe   { return stage[*memoryProbe](s) }

func stage[P proposer](s *sampler) P {
	for _, p := range s.propose {
		if q, ok := p.(P); ok {
			return q
		}
	}
	panic("no such stage")
}

// A right prior (off by a constant factor, which ranking ignores) sends
// the first proposal to the best feasible config it screened.
func TestPriorProposesItsBestFirst(t *testing.T) {
	sp := priorSpace()
	p := priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c) / 3}, truth(c) <= 8 })
	s := newPriorSampler(t, sp, p)
	c, err := askOne(s)
	if err != nil {
		t.Fatal(err)
	}
	if truth(c) != 8 {
		t.Errorf("first proposal %s (y=%v), want a best feasible config (y=8)", c.Summary(), truth(c))
	}
}

// An inverted prior cannot trap the study: the inner sampler keeps
// proposing, and every config of the space is reached.
func TestWrongPriorDoesNotTrapTheStudy(t *testing.T) {
	sp := priorSpace()
	p := priorFunc(func(c space.Config) ([]float64, bool) { return []float64{100 - truth(c)}, true })
	s := newPriorSampler(t, sp, p)
	seen := map[string]bool{}
	for range 36 {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		seen[c.Key()] = true
		if err := s.Tell(context.Background(), observe(c, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 36 {
		t.Errorf("36 asks reached %d of 36 configs", len(seen))
	}
}

// Predicted-infeasible configs are skipped while the prediction holds;
// once one of them completes, the prior's feasibility is not trusted.
func TestPriorFeasibilityFilterAndItsRelease(t *testing.T) {
	sp := priorSpace()
	p := priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c)}, truth(c) <= 6 })
	s := newPriorSampler(t, sp, p).(*sampler)
	for range 10 {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		if truth(c) > 6 && innerOf(s).filtered%exploreEvery != 0 {
			t.Fatalf("proposed predicted-infeasible %s outside exploration", c.Summary())
		}
		// Reality's wall is at 12: everything runs.
		if err := s.Tell(context.Background(), observe(c, 12)); err != nil {
			t.Fatal(err)
		}
	}
	if innerOf(s).filtered == 0 {
		t.Fatal("no inner proposal was filtered in 10 asks")
	}
	if s.st.trust.ranBad > 0 && s.st.trust.feasibility() {
		t.Error("a predicted-infeasible config completed, yet the filter is still trusted")
	}
}

func TestResidualLearnsFactorAndKnobDeviation(t *testing.T) {
	r := newResidual(1)
	// Reality is 2× the prior, and 4× where a=1.
	for a := int64(1); a <= 3; a++ {
		for b := int64(1); b <= 3; b++ {
			v := math.Log(2)
			if a == 1 {
				v = math.Log(4)
			}
			r.add(0, space.Config{"a": a, "b": b}, v)
		}
	}
	at1 := r.predict(0, space.Config{"a": int64(1), "b": int64(2)})
	at3 := r.predict(0, space.Config{"a": int64(3), "b": int64(2)})
	if !(at1 > at3) || math.Abs(at3-math.Log(2)) > 0.3 || math.Abs(at1-math.Log(4)) > 0.5 {
		t.Errorf("residuals a=1 %.3f (want ≈ln4=%.3f), a=3 %.3f (want ≈ln2=%.3f)", at1, math.Log(4), at3, math.Log(2))
	}
	if got := newResidual(1).predict(0, space.Config{"a": int64(1)}); got != 0 {
		t.Errorf("empty residual predicts %v", got)
	}
}
