package search

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/space"
)

func TestFrontShare(t *testing.T) {
	cases := []struct {
		name         string
		prior, inner sourceRecord
		want         float64
	}{
		{"no evidence: every other", sourceRecord{}, sourceRecord{}, 0.5},
		{"alike: every other", sourceRecord{10, 4}, sourceRecord{10, 4}, 0.5},
		{"twice the rate", sourceRecord{8, 7}, sourceRecord{8, 3}, 0.64},
		{"the prior extends the front, the sampler never: capped", sourceRecord{10, 10}, sourceRecord{20, 0}, frontMaxShare},
		{"the prior never extends the front: floored", sourceRecord{20, 0}, sourceRecord{10, 10}, frontMinShare},
	}
	for _, c := range cases {
		want := c.want
		if c.name == "twice the rate" {
			rp, ri := 8.0/10, 4.0/10
			want = rp / (rp + ri)
		}
		if got := frontShare(c.prior, c.inner); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: share %g, want %g", c.name, got, want)
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
		if len(got) != len(c.turns) {
			t.Errorf("share %g: turns %v, want %v", c.s, got, c.turns)
			continue
		}
		for i := range got {
			if got[i] != c.turns[i] {
				t.Errorf("share %g: turns %v, want %v", c.s, got, c.turns)
				break
			}
		}
	}
}

// A multi-objective prior whose picks each extend the front while the
// inner sampler's add nothing takes more than every other proposal (main
// kept it at one in two whatever its picks did).
func TestFrontTurnFollowsWhatThePicksAdd(t *testing.T) {
	sp := frontSpace()
	s := newPriorSampler(t, sp, priorFunc(frontPrior)).(*priorSampler)
	ctx := context.Background()
	tell := func(c space.Config, origin string, v []float64) {
		s.note(ctx, c, origin)
		if err := s.Tell(ctx, Observation{Config: c, State: Complete, Value: v[0], Values: v}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		a := 1 + float64(i)
		tell(space.Config{"a": a, "b": int64(1)}, "prior", []float64{a, a}) // each extends the front
		tell(space.Config{"a": a + 0.5, "b": int64(2)}, "sampler", []float64{a / 10, 100})
	}
	s.asked = 12
	turns := 0
	for range 10 {
		s.asked++
		if s.priorTurn() {
			turns++
		}
	}
	if turns < 8 {
		t.Errorf("the prior took %d of 10 turns, want ≥ 8", turns)
	}
}
