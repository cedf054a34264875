package prior

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// rep is n errors of x (the trust tables' measured errors).
func rep(x float64, n int) []float64 { return slices.Repeat([]float64{x}, n) }

func TestPriorEveryFallsAsTheErrorGrows(t *testing.T) {
	for _, c := range []struct {
		name string
		errs []float64
		want int
	}{
		{"too few measurements keep the default", rep(2, minErrTrials-1), priorEvery},
		{"within noise keeps the default", rep(0.05, 8), priorEvery},
		{"at the tolerance keeps the default", rep(errTolerance, 8), priorEvery},
		{"twice the tolerance halves the share", rep(2*errTolerance, 8), 2 * priorEvery},
		{"just above the tolerance gives up a little", rep(1.2*errTolerance, 8), 3},
		{"far off is capped at one in maxEvery", rep(5, 8), maxEvery},
		{"the median ignores one wild trial", append(rep(0.05, 6), 3), priorEvery},
		{"only the last window counts: an early miss is forgiven", append(rep(3, 6), rep(0.05, errWindow)...), priorEvery},
		{"a prior going wrong late loses its share", append(rep(0.05, 6), rep(0.6, errWindow)...), 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := priorEveryFor(c.errs); got != c.want {
				t.Errorf("priorEveryFor(%v) = %d, want %d", c.errs, got, c.want)
			}
		})
	}
}

func TestPriorTrustCombinesErrorAndRanking(t *testing.T) {
	var pt priorTrust
	for i := range 6 {
		pt.pred = append(pt.pred, float64(i))
		pt.real = append(pt.real, float64(i))
		pt.miss(0.3 * float64(1-2*(i%2))) // signs do not matter
	}
	pt.miss(math.NaN())
	pt.miss(math.Inf(1))
	if len(pt.errs) != 6 || pt.every() != 4 {
		t.Errorf("errs %v every %d, want 6 errors and one in 4", pt.errs, pt.every())
	}
	// Reversed ranking: at most one in distrustEvery, whatever the error.
	for i := range pt.real {
		pt.real[i] = -pt.real[i]
	}
	pt.errs = nil
	if pt.every() != distrustEvery {
		t.Errorf("a badly ranking prior makes one in %d, want %d", pt.every(), distrustEvery)
	}
}

// The error is measured after the residual correction: a prior off by a
// constant factor is corrected after one trial and keeps its share; one
// whose error no knob explains loses it.
func TestPriorErrorIsMeasuredAfterCorrection(t *testing.T) {
	sp := priorSpace()
	run := func(p search.Prior) *sampler {
		s := newPriorSampler(t, sp, p).(*sampler)
		for range 20 {
			c, err := askOne(s)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Tell(context.Background(), observe(c, 100)); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	constant := run(priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c) / 3}, true }))
	if got := constant.st.trust.every(); got != priorEvery {
		t.Errorf("a constant-factor prior (errors %v) makes one in %d, want %d", constant.st.trust.errs, got, priorEvery)
	}
	// Right order, but the scale swings by ×e^±1 in a pattern of a and b
	// together that an additive per-knob correction cannot follow.
	swing := func(c space.Config) float64 {
		a, _ := c.Int("a")
		b, _ := c.Int("b")
		return math.Exp(float64(2*((a*b)%2) - 1))
	}
	wild := run(priorFunc(func(c space.Config) ([]float64, bool) { return []float64{truth(c) * swing(c)}, true }))
	if got := wild.st.trust.every(); got <= priorEvery {
		t.Errorf("a prior missing by ×e (errors %v) still makes one in %d", wild.st.trust.errs, got)
	}
}

// memoryPlanPrior screens every config as feasible (values y) but its
// full prediction runs out of memory above y = 6: a memory plan that is
// wrong under the full benchmark's load.
type memoryPlanPrior struct{}

func (memoryPlanPrior) Screen(_ context.Context, c space.Config) ([]float64, bool) {
	return []float64{truth(c)}, true
}
func (memoryPlanPrior) Predict(_ context.Context, c space.Config) ([]float64, bool) {
	return []float64{truth(c)}, truth(c) <= 6
}

// Until a predicted-infeasible config completes, the prior never proposes
// one; once one does, its region is open again and the prior's pick goes
// to the best config it screened there.
func TestPredictedInfeasibleRegionReopensWhenContradicted(t *testing.T) {
	sp := priorSpace()
	s := newPriorSampler(t, sp, memoryPlanPrior{}).(*sampler)
	// (Screening's top configs are all refused in full: the prior has no
	// pick of its own yet, and leaves the proposal to the inner sampler.)
	if c, ok := pickerOf(s).pick(map[string]bool{}); ok && truth(c) > 6 {
		t.Fatalf("before any contradiction the prior picked %v (y=%v), want only configs it predicts feasible", c, truth(c))
	}
	// A config the full prediction called out of memory completes.
	oom := space.Config{"a": int64(4), "b": int64(3)}
	if s.st.tab.predict(context.Background(), s.st.sp.WithTargetEngine(oom)).feasible {
		t.Fatal("the test's memory plan must refuse a=4 b=3")
	}
	if err := s.Tell(context.Background(), observe(oom, 12)); err != nil {
		t.Fatal(err)
	}
	if !s.st.trust.memoryContradicted() || s.st.trust.feasibility() {
		t.Fatal("a predicted-infeasible config completed, yet the memory plan is still trusted")
	}
	c, ok := pickerOf(s).pick(map[string]bool{})
	if !ok || truth(c) != 12 {
		t.Errorf("after the contradiction the prior picked %v (y=%v), want the re-opened best (y=12)", c, truth(c))
	}
}
