package samplers

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// A batch is the sequence of single asks it replaces: Ask(k, pending)
// proposes what k calls of Ask(1, pending and the proposals so far)
// would, for every sampler that a seed reproduces, so a study's workers
// asking for their free slots at once propose what they did one at a
// time (the lab's seeded figures stay the same).
func TestABatchIsTheSequenceOfSingleAsks(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			single := proposals(t, name, false)
			if again := proposals(t, name, false); !slices.Equal(single, again) {
				t.Skipf("%s proposes differently from run to run for one seed (goptuna draws some values from the global rand): no sequence to compare with", name)
			}
			batched := proposals(t, name, true)
			for i := range single {
				if i >= len(batched) || batched[i] != single[i] {
					t.Fatalf("proposal %d: batched %v, single asks %v", i, batched, single)
				}
			}
		})
	}
}

// proposals is what a sampler proposes over 8 rounds of 3 workers, the
// oldest two trials finishing each round: asked as one batch per round,
// or one config at a time with the earlier ones pending.
func proposals(t *testing.T, name string, batched bool) []string {
	sp := sequenceSpaces()["mo"]
	sp.Objectives = sp.Objectives[:1]
	s, err := New(context.Background(), name, sp, 7, nil, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var running []space.Config
	for round := range 8 {
		var got []space.Config
		if batched {
			got, err = s.Ask(context.Background(), 3, running)
		} else {
			for range 3 {
				one, e := s.Ask(context.Background(), 1, append(running, got...))
				if len(got) > 0 && (errors.Is(e, search.ErrPending) || errors.Is(e, search.ErrExhausted)) {
					break // as a batch stops short
				}
				if err = e; err != nil {
					break
				}
				got = append(got, one...)
			}
		}
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for _, c := range got {
			out = append(out, c.Key())
		}
		running = append(running, got...)
		for range 2 {
			if err := s.Tell(context.Background(), sequenceOutcome(sp, running[0], round)); err != nil {
				t.Fatal(err)
			}
			running = running[1:]
		}
	}
	return out
}
