package search

import (
	"errors"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
)

// workers simulates parallel workers: every round asks for a batch with
// the running configs pending, then the oldest running trials finish. No
// batch may hold a config twice, a pending one or a told one.
func TestBatchesNeverRepeatPendingOrToldConfigs(t *testing.T) {
	for _, name := range SamplerNames() {
		t.Run(name, func(t *testing.T) {
			sp := sequenceSpaces()["mo"]
			sp.Objectives = sp.Objectives[:1]
			s, err := NewSampler(name, sp, 3, nil, zerolog.Nop(), Options{})
			if err != nil {
				t.Fatal(err)
			}
			told := map[string]bool{}
			var running []space.Config
			for round := range 12 {
				cs, err := s.Ask(4, running)
				if err != nil && !errors.Is(err, ErrPending) {
					t.Fatalf("round %d: %v", round, err)
				}
				if err == nil && (len(cs) < 1 || len(cs) > 4) {
					t.Fatalf("round %d: batch of %d, want 1 to 4", round, len(cs))
				}
				busy := keySet(sp, running)
				for _, c := range cs {
					k := configKey(sp, c)
					if busy[k] || told[k] {
						t.Fatalf("round %d: %v is pending, told or twice in the batch", round, c)
					}
					busy[k] = true
				}
				running = append(running, cs...)
				for range min(3, len(running)) {
					c := running[0]
					running = running[1:]
					told[configKey(sp, c)] = true
					if err := s.Tell(sequenceOutcome(sp, c, round)); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// A grid batch takes distinct points; with every point left running the
// grid waits (ErrPending), and it is exhausted only once all are told. A
// point asked for and abandoned (no longer pending, never told) comes back.
func TestGridBatches(t *testing.T) {
	sp := testSpace("grid")
	s, err := NewSampler("grid", sp, 1, nil, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Ask(5, nil)
	if err != nil || len(first) != 5 {
		t.Fatalf("Ask(5) = %d configs, %v", len(first), err)
	}
	rest, err := s.Ask(20, first)
	if err != nil || len(rest) != 7 {
		t.Fatalf("Ask(20) with 5 pending = %d configs, %v; want the other 7", len(rest), err)
	}
	all := append(append([]space.Config(nil), first...), rest...)
	if len(keySet(sp, all)) != 12 {
		t.Fatalf("the two batches hold %d distinct points, want 12", len(keySet(sp, all)))
	}
	if _, err := s.Ask(1, all); !errors.Is(err, ErrPending) {
		t.Fatalf("Ask with every point running = %v, want ErrPending", err)
	}
	for _, c := range all[1:] {
		_ = s.Tell(Observation{Config: c, State: Complete, Value: 1})
	}
	again, err := s.Ask(3, nil)
	if err != nil || len(again) != 1 || configKey(sp, again[0]) != configKey(sp, all[0]) {
		t.Fatalf("Ask after the point was abandoned = %v, %v; want it again", again, err)
	}
	_ = s.Tell(Observation{Config: all[0], State: Complete, Value: 1})
	if _, err := s.Ask(1, nil); !errors.Is(err, ErrExhausted) {
		t.Fatalf("Ask after every point = %v, want ErrExhausted", err)
	}
}

// Greedy's batch is the rest of one knob's sweep: it cannot choose the
// next knob before the running values are told.
func TestGreedyBatchIsOneKnob(t *testing.T) {
	sp, f := greedyLandscape()
	s, err := NewSampler("greedy", sp, 1, nil, zerolog.Nop(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for round := 0; round < 10; round++ {
		cs, err := s.Ask(10, nil)
		if errors.Is(err, ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Ask(1, cs); !errors.Is(err, ErrPending) {
			t.Fatalf("round %d: Ask with the knob's values running = %v, want ErrPending", round, err)
		}
		got = append(got, strings.Join(summaries(cs), " | "))
		for _, c := range cs {
			_ = s.Tell(f(c))
		}
	}
	want := []string{
		"engine=vllm mem=0.7 mr=1 spec=none | engine=sglang mem=0.7 mr=1 spec=none",
		"engine=sglang mem=0.75 mr=1 spec=none | engine=sglang mem=0.8 mr=1 spec=none | engine=sglang mem=0.85 mr=1 spec=none | engine=sglang mem=0.9 mr=1 spec=none",
		"engine=sglang mem=0.85 mr=2 spec=none | engine=sglang mem=0.85 mr=3 spec=none",
		"engine=sglang mem=0.85 mr=3 spec=EAGLE steps=1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("batches:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckSampler(t *testing.T) {
	cases := []struct {
		name string
		objs int
		want string // "" for no error
	}{
		{"motpe", 3, ""},
		{"random", 2, ""},
		{"grid", 2, ""},
		{"tpe", 1, ""},
		{"tpe", 2, "tpe optimises one objective; this study has 2: use motpe or random"},
		{"cmaes", 2, "cmaes optimises one objective"},
		{"greedy", 2, "greedy optimises one objective"},
		{"nsga2", 1, `unknown sampler "nsga2": use one of motpe, tpe, random, grid, cmaes, greedy`},
	}
	for _, c := range cases {
		err := CheckSampler(c.name, c.objs)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckSampler(%q, %d) = %v, want %q", c.name, c.objs, err, c.want)
		}
	}
	sp := testSpace("tpe")
	sp.Objectives = append(sp.Objectives, minObj("z"))
	if _, err := NewSampler("tpe", sp, 1, nil, zerolog.Nop(), Options{}); err == nil {
		t.Error("NewSampler built tpe for two objectives")
	}
}
