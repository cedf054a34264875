package prior

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// Every proposal says who made it: the first warmStart are the prior's,
// later ones alternate with the inner sampler's, and each carries what
// the prior predicted for that very config.
func TestPriorExplainsItsProposals(t *testing.T) {
	sp := priorSpace()
	p := priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c) * 2}, truth(c) <= 8 })
	s := newPriorSampler(t, sp, p)
	ex, ok := s.(search.Explainer)
	if !ok {
		t.Fatal("the prior sampler does not explain its proposals")
	}
	origins := map[string]int{}
	for i := range 12 {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		prop, ok := ex.Explain(c)
		if !ok {
			t.Fatalf("proposal %d (%s) has no explanation", i, c.Summary())
		}
		origins[prop.Origin]++
		if i < warmStart && prop.Origin != "prior" {
			t.Errorf("proposal %d: origin %q, want prior (warm start)", i, prop.Origin)
		}
		want, feasible := p(sp.WithTargetEngine(c))
		if prop.Feasible != feasible || (feasible && (len(prop.Predicted) != 1 || prop.Predicted[0] != want[0])) {
			t.Errorf("proposal %d %s: prediction %v feasible %v, want %v %v", i, c.Summary(), prop.Predicted, prop.Feasible, want, feasible)
		}
		if err := s.Tell(context.Background(), observe(c, 8)); err != nil {
			t.Fatal(err)
		}
	}
	if origins["prior"] == 0 || origins["sampler"] == 0 {
		t.Errorf("origins %v: want both the prior's and the sampler's proposals", origins)
	}
	if _, ok := ex.Explain(space.Config{"a": int64(99), "b": int64(99)}); ok {
		t.Error("a config never proposed has an explanation")
	}
}

// The outlook names each value of each small knob with the best value
// the prior predicted there: with y = a + b feasible up to 8, a = 6 can
// reach 8 (b = 2) and a = 1 at most 7.
func TestPriorOutlookPerKnobValue(t *testing.T) {
	sp := priorSpace()
	p := priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c)}, truth(c) <= 8 })
	s := newPriorSampler(t, sp, p).(search.Outlooker)
	got := map[string]search.Region{}
	for _, r := range s.Outlook() {
		got[r.Knob+"="+r.Value] = r
	}
	if len(got) != 12 {
		t.Fatalf("outlook has %d regions, want 12 (a and b, six values each): %v", len(got), got)
	}
	for key, want := range map[string]float64{"a=6": 8, "a=1": 7, "b=3": 8} {
		r := got[key]
		if r.Full+r.Screened == 0 || math.Abs(r.Best[0]-want) > 1e-9 {
			t.Errorf("%s: best %v over %d+%d configs, want %v", key, r.Best, r.Full, r.Screened, want)
		}
	}
}
