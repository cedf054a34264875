package prior

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

func TestStartWeight(t *testing.T) {
	cases := []struct {
		name    string
		p       float64
		decided bool
		want    float64
	}{
		{"memory says nothing", 0.1, false, 1},
		{"likely to start", 0.8, true, 1},
		{"just above even", 0.51, true, 1},
		{"doubted: weighed by its chance", 0.35, true, 0.35},
		{"at the exploration floor", exploreFloor, true, exploreFloor},
		{"ruled out by the evidence", exploreFloor / 2, true, 0},
	}
	for _, c := range cases {
		if got := startWeight(c.p, c.decided); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: startWeight(%v, %v) = %v, want %v", c.name, c.p, c.decided, got, c.want)
		}
	}
}

func TestBestExpectedGain(t *testing.T) {
	objs := []space.Objective{maxObj("tps"), minObj("tpot")}
	ref := []float64{0, 100}
	points := [][]float64{{50, 50}}
	ests := [][]float64{{60, 50}, {100, 10}, {40, 60}}
	cases := []struct {
		name    string
		weights []float64
		want    int
	}{
		{"equal weights: the largest gain", []float64{1, 1, 1}, 1},
		{"the large gain at a third of a chance still wins", []float64{1, 0.3, 1}, 1},
		{"at a twentieth it does not", []float64{1, 0.05, 1}, 0},
		{"weight 0 is never picked", []float64{0, 0, 1}, -1},
	}
	for _, c := range cases {
		if got := bestExpectedGain(points, ests, c.weights, objs, ref); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

// A front move next to a measured config keeps its turn in a region where
// the prior's absolute predictions miss: its estimate is that measurement
// scaled by the prior's predicted ratio, so the region's miss cancels.
// Here every vllm trial measured far from the cards (the region
// engine=vllm loses the prior's turns), yet vllm holds the measured front
// and n=5 next to its top member is the move that extends it most. Main
// gave the region's candidates one pick in regionEvery and picked sglang.
func TestFrontMoveNextToAMeasurementKeepsItsTurnInADistrustedRegion(t *testing.T) {
	s := newPriorSampler(t, twoEngineSpace(), priorFunc(twoEnginePrior)).(*sampler)
	ctx := context.Background()
	tell := func(cfg space.Config, v []float64) {
		t.Helper()
		s.st.note(ctx, cfg, "prior")
		if err := s.Tell(ctx, search.Observation{Config: cfg, State: search.Complete, Value: v[0], Values: v}); err != nil {
			t.Fatal(err)
		}
	}
	for n := int64(1); n <= 4; n++ {
		sg := space.Config{"engine": "sglang", "n": n}
		v, _ := twoEnginePrior(sg)
		tell(sg, v) // sglang as the cards say
		vl := space.Config{"engine": "vllm", "n": n}
		tell(vl, []float64{150 * float64(n), 4 * float64(n)}) // vllm far better: dominates sglang
	}
	for range 6 { // the region's recent errors: far beyond the rest's
		s.st.regions.miss(space.Config{"engine": "vllm", "n": int64(1)}, 1.5)
		s.st.regions.miss(space.Config{"engine": "sglang", "n": int64(1)}, 0.01)
	}
	if e := s.st.regions.every(space.Config{"engine": "vllm", "n": int64(5)}); e <= priorEvery {
		t.Fatalf("region engine=vllm still trusted (every %d): the test does not set up a distrusted region", e)
	}
	s.st.picks = 3 // a pick on which the distrusted region has no turn
	if regionTurn(s.st.regions.every(space.Config{"engine": "vllm"}), s.st.picks) {
		t.Fatalf("pick %d is the region's turn anyway", s.st.picks)
	}
	pickerOf(s).prepare(ctx)
	got, ok := pickerOf(s).front.pickHV(nil)
	if !ok || got["engine"] != "vllm" {
		t.Errorf("picked %v (%v), want the vllm front move", got, ok)
	}
}
