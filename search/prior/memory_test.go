package prior

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// needFits is a memory plan where a config needs need × overhead of the
// card's memory: it starts where that is at most mem.
func needFits(need float64) func(mem, overhead float64) (bool, bool) {
	return func(mem, overhead float64) (bool, bool) { return need*overhead <= mem+1e-12, true }
}

func TestMemoryLimits(t *testing.T) {
	mems, overs := []float64{0.5, 1, 2}, []float64{0.5, 1, 2}
	cases := []struct {
		name string
		fits func(mem, overhead float64) (bool, bool)
		want memoryLimit
	}{
		{"starts anywhere", needFits(0.1), memoryLimit{3, 3, 3}},
		{"never starts", needFits(10), memoryLimit{0, 0, 0}},
		// need 1: starts where overhead ≤ mem.
		{"needs the card", needFits(1), memoryLimit{1, 2, 3}},
		{"refused for another reason", func(float64, float64) (bool, bool) { return false, false }, nil},
	}
	for _, c := range cases {
		if got := memoryLimits(mems, overs, c.fits); !slices.Equal(got, c.want) {
			t.Errorf("%s: limits %v, want %v", c.name, got, c.want)
		}
	}
}

// testMemory is a learned plan on the package's grid, with limits of
// configs of the given needs (× the card's memory at its overheads).
func testMemory() (logW []float64, limit func(need float64) memoryLimit) {
	mems, overs := ladder(memStep), ladder(overStep)
	return memoryPrior(mems, overs), func(need float64) memoryLimit { return memoryLimits(mems, overs, needFits(need)) }
}

// Until a trial contradicts it the card decides; a config that ran out
// of memory though the card said it fits closes the band above it and
// leaves configs that need much less open; one that started though the
// card said it does not re-opens configs up to it, not beyond.
func TestMemoryPosterior(t *testing.T) {
	n := len(ladder(overStep))
	type trial struct {
		need    float64
		started bool
	}
	cases := []struct {
		name   string
		trials []trial
		need   float64
		fits   bool
	}{
		{"no evidence: the card's fit", nil, 0.97, true},
		{"no evidence: the card's out of memory", nil, 1.03, false},
		{"agreeing evidence keeps the card", []trial{{0.9, true}, {1.2, false}}, 0.99, true},
		{"an overrated plan: the failed need", []trial{{0.95, false}}, 0.95, false},
		{"an overrated plan: just under it", []trial{{0.95, false}}, 0.94, false},
		{"an overrated plan: far under it", []trial{{0.95, false}}, 0.6, true},
		{"an overrated plan: under what started", []trial{{0.95, false}, {0.85, true}}, 0.84, true},
		{"an underrated plan: up to what started", []trial{{1.2, true}}, 1.15, true},
		{"an underrated plan: far beyond it", []trial{{1.2, true}}, 2.5, false},
		{"one odd failure below a success does not close it", []trial{{1.1, true}, {1.1, true}, {1.0, false}}, 1.05, true},
	}
	for _, c := range cases {
		logW, limit := testMemory()
		for _, tr := range c.trials {
			memoryUpdate(logW, n, limit(tr.need), tr.started)
		}
		if p := fitProbability(logW, n, limit(c.need)); (p > 0.5) != c.fits {
			t.Errorf("%s: need %.2f starts with probability %.2f, want fits=%v", c.name, c.need, p, c.fits)
		}
	}
}

// memoryPrior8 predicts priorSpace's y (a little more the larger a, so
// no two configs are twins) with a memory plan: a config needs
// (a+b)/wall of the card's memory at its overheads.
type memoryPrior8 struct{ wall float64 }

func (p memoryPrior8) Predict(_ context.Context, c space.Config) ([]float64, bool) {
	a, _ := c.Int("a")
	return []float64{truth(c) + 0.01*float64(a)}, truth(c) <= p.wall
}

func (p memoryPrior8) MemoryFits(c space.Config, mem, overhead float64) (bool, bool) {
	return truth(c)/p.wall*overhead <= mem+1e-12, true
}

// A memory plan that overrates the machine (the card starts a+b ≤ 8, the
// machine only a+b ≤ 6) costs the prior an out-of-memory trial or two,
// not one per config at the edge: after the first, its picks leave the
// band. Without the learned plan its first picks are the eight configs
// with a+b = 7 or 8, every one out of memory.
func TestPriorLearnsAnOverratedMemoryPlan(t *testing.T) {
	sp := priorSpace()
	s := newPriorSampler(t, sp, memoryPrior8{wall: 8}).(*sampler)
	ooms := 0
	for range 8 {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		o := observe(c, 6)
		if o.Class == "oom" {
			ooms++
		}
		if err := s.Tell(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	if ooms > 3 {
		t.Errorf("%d of 8 trials ran out of memory on a machine with three quarters of the card's memory", ooms)
	}
	if s.st.memory == nil {
		t.Fatal("the prior is a MemoryPlanner, yet no memory plan is learnt")
	}
	if mem, over, contradicted := s.LearntMemory(); !contradicted || !(mem/over < 1) {
		t.Errorf("learnt memory ×%.2f, overheads ×%.2f (contradicted %v): want less room than the card's", mem, over, contradicted)
	}
}

// servetune run keeps the prior's predictions in a file (Cache); the
// cache must not hide the memory plan, or a real study never learns it
// while the lab, which does not cache, does.
func TestCachedPriorKeepsItsMemoryPlan(t *testing.T) {
	sp := priorSpace()
	cached, closeCache, err := Cache(memoryPrior8{wall: 8}, sp, filepath.Join(t.TempDir(), "prior.jsonl"), "k")
	if err != nil {
		t.Fatal(err)
	}
	defer closeCache()
	s := newPriorSampler(t, sp, cached).(*sampler)
	if s.st.memory == nil {
		t.Fatal("a cached MemoryPlanner prior learns no memory plan")
	}
}

// The learned plan is learnt from the trials only: a resumed study told
// its history proposes as if it had run it.
func TestLearnedMemoryPlanSurvivesResume(t *testing.T) {
	sp := priorSpace()
	history := []search.Observation{
		observe(space.Config{"a": int64(4), "b": int64(4)}, 6),
		observe(space.Config{"a": int64(3), "b": int64(4)}, 6),
		observe(space.Config{"a": int64(3), "b": int64(3)}, 6),
	}
	s := newPriorSampler(t, sp, memoryPrior8{wall: 8}).(*sampler)
	for _, o := range history {
		if err := s.Tell(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		c, err := askOne(s)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := s.Explain(c); ok && p.Origin == "prior" && truth(c) > 6 {
			t.Errorf("after resuming, the prior picked %s (a+b=%v), which the learned plan rules out", c.Summary(), truth(c))
		}
		if err := s.Tell(context.Background(), observe(c, 6)); err != nil {
			t.Fatal(err)
		}
	}
}

// A plan that underrates the machine (the card starts a+b ≤ 6, the
// machine a+b ≤ 9): once a config the card ruled out completes, the
// inner sampler's proposals up to it run, and those far beyond it stay
// filtered — not every predicted-infeasible config at once.
func TestLearnedMemoryPlanReopensOnlyAsFarAsTheEvidence(t *testing.T) {
	sp := priorSpace()
	s := newPriorSampler(t, sp, memoryPrior8{wall: 6}).(*sampler)
	ctx := context.Background()
	for _, c := range []space.Config{{"a": int64(4), "b": int64(4)}, {"a": int64(2), "b": int64(3)}} {
		if err := s.Tell(ctx, observe(c, 9)); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		c        space.Config
		run, exp bool
	}{
		{space.Config{"a": int64(3), "b": int64(5)}, true, true},
		{space.Config{"a": int64(6), "b": int64(6)}, false, false},
	}
	for _, c := range cases {
		run, explore := innerOf(s).verdict(ctx, sp.WithTargetEngine(c.c))
		if run != c.run || explore != c.exp {
			t.Errorf("%s: run %v explore %v, want %v %v", c.c.Summary(), run, explore, c.run, c.exp)
		}
	}
}
