package prior

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

func TestFrontShare(t *testing.T) {
	cases := []struct {
		name         string
		prior, inner sourceRecord
		want         float64
	}{
		{"no evidence: the prior's picks lose nothing", sourceRecord{}, sourceRecord{}, frontMaxShare},
		{"alike: capped", sourceRecord{10, 4, 0.4}, sourceRecord{10, 4, 0.4}, frontMaxShare},
		{"the sampler's wins add more: by the win rates", sourceRecord{8, 7, 0.1}, sourceRecord{8, 3, 0.6}, (8.0 / 10) / (8.0/10 + 4.0/10)},
		{"fewer but larger wins: capped", sourceRecord{10, 3, 0.6}, sourceRecord{10, 5, 0.2}, frontMaxShare},
		{"the prior never extends the front: floored", sourceRecord{20, 0, 0}, sourceRecord{10, 10, 0.9}, frontMinShare},
	}
	for _, c := range cases {
		if got := frontShare(c.prior, c.inner); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: share %g, want %g", c.name, got, c.want)
		}
	}
}

func TestGainRates(t *testing.T) {
	cases := []struct {
		name         string
		prior, inner sourceRecord
		gp, gi       float64
	}{
		{"no trials", sourceRecord{}, sourceRecord{}, 0, 0},
		// pooled 0.5/5 = 0.1: (0.4+0.1)/3, (0.1+0.1)/4
		{"shrunk to the pooled rate", sourceRecord{2, 1, 0.4}, sourceRecord{3, 1, 0.1}, 0.5 / 3, 0.2 / 4},
		// pooled 0.3/3: the sampler's one trial is worth (0+0.1)/2
		{"one trial of nothing is not a zero rate", sourceRecord{2, 2, 0.3}, sourceRecord{1, 0, 0}, 0.4 / 3, 0.1 / 2},
	}
	for _, c := range cases {
		gp, gi := gainRates(c.prior, c.inner)
		if math.Abs(gp-c.gp) > 1e-9 || math.Abs(gi-c.gi) > 1e-9 {
			t.Errorf("%s: rates %g, %g, want %g, %g", c.name, gp, gi, c.gp, c.gi)
		}
	}
}

func TestShareTurn(t *testing.T) {
	cases := []struct {
		s     float64
		turns []int // of asks 1..10
	}{
		{0.5, []int{2, 4, 6, 8, 10}},
		{0.2, []int{5, 10}},
		{0.9, []int{2, 3, 4, 5, 6, 7, 8, 9, 10}},
	}
	for _, c := range cases {
		var got []int
		for a := 1; a <= 10; a++ {
			if shareTurn(a, c.s) {
				got = append(got, a)
			}
		}
		if !slices.Equal(got, c.turns) {
			t.Errorf("share %g: turns %v, want %v", c.s, got, c.turns)
		}
	}
}

// A multi-objective prior whose picks each extend the front while the
// inner sampler's add nothing takes more than every other proposal (main
// kept it at one in two whatever its picks did).
func TestFrontTurnFollowsWhatThePicksAdd(t *testing.T) {
	s, tell := frontSampler(t)
	for i := range 6 {
		a := 1 + float64(i)
		tell(space.Config{"a": a, "b": int64(1)}, "prior", []float64{a, a}) // each extends the front
		tell(space.Config{"a": a + 0.5, "b": int64(2)}, "sampler", []float64{a / 10, 100})
	}
	s.st.asked = 12
	if turns := nextTurns(s, 10); turns < 8 {
		t.Errorf("the prior took %d of 10 turns, want ≥ 8", turns)
	}
}

// A prior whose picks extend the front less often than the inner
// sampler's, but by far more each time, keeps most turns (main shared
// them by win counts alone: fewer than half).
func TestFrontTurnWeighsWhatTheWinsAdd(t *testing.T) {
	s, tell := frontSampler(t)
	// The prior: three picks, each a large step of the front.
	for i, a := range []float64{2, 4, 6} {
		tell(space.Config{"a": a, "b": int64(1)}, "prior", []float64{a * 10, 1 + float64(i)})
		tell(space.Config{"a": a + 0.5, "b": int64(1)}, "prior", []float64{1, 100}) // dominated
	}
	// The sampler: four small wins just past the front's high end.
	for i := range 4 {
		a := 6.1 + float64(i)/10
		tell(space.Config{"a": a, "b": int64(2)}, "sampler", []float64{60.5 + float64(i)/2, 3.01 + float64(i)/100})
	}
	s.st.asked = 10
	if turns := nextTurns(s, 10); turns < 8 {
		t.Errorf("the prior took %d of 10 turns, want ≥ 8", turns)
	}
}

// nextTurns is how many of s's next n proposals are the prior's.
func nextTurns(s *sampler, n int) int {
	turns := 0
	for range n {
		s.st.asked++
		if s.turns.priorTurn() {
			turns++
		}
	}
	return turns
}

// frontSampler is a two-objective prior sampler on frontSpace and a tell
// that records a complete trial of the given origin.
func frontSampler(t *testing.T) (*sampler, func(space.Config, string, []float64)) {
	t.Helper()
	s := newPriorSampler(t, frontSpace(), priorFunc(frontPrior)).(*sampler)
	ctx := context.Background()
	return s, func(c space.Config, origin string, v []float64) {
		s.st.note(ctx, c, origin)
		if err := s.Tell(ctx, search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v}); err != nil {
			t.Fatal(err)
		}
	}
}
