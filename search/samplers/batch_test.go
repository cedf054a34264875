package samplers

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/internal/searchtest"
	"github.com/servetune/servetune/space"
)

// workers simulates parallel workers: every round asks for a batch with
// the running configs pending, then the oldest running trials finish. No
// batch may hold a config twice, a pending one or a told one.
func TestBatchesNeverRepeatPendingOrToldConfigs(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			sp := sequenceSpaces()["mo"]
			sp.Objectives = sp.Objectives[:1]
			s, err := New(context.Background(), name, sp, 3, nil, zerolog.Nop(), search.Options{})
			if err != nil {
				t.Fatal(err)
			}
			told := map[string]bool{}
			var running []space.Config
			for round := range 12 {
				cs, err := s.Ask(context.Background(), 4, running)
				if err != nil && !errors.Is(err, search.ErrPending) {
					t.Fatalf("round %d: %v", round, err)
				}
				if err == nil && (len(cs) < 1 || len(cs) > 4) {
					t.Fatalf("round %d: batch of %d, want 1 to 4", round, len(cs))
				}
				busy := search.KeySet(sp, running)
				for _, c := range cs {
					k := search.ConfigKey(sp, c)
					if busy[k] || told[k] {
						t.Fatalf("round %d: %v is pending, told or twice in the batch", round, c)
					}
					busy[k] = true
				}
				running = append(running, cs...)
				for range min(3, len(running)) {
					c := running[0]
					running = running[1:]
					told[search.ConfigKey(sp, c)] = true
					if err := s.Tell(context.Background(), sequenceOutcome(sp, c, round)); err != nil {
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
	sp := searchtest.TestSpace("grid")
	s, err := New(context.Background(), "grid", sp, 1, nil, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.Ask(context.Background(), 5, nil)
	if err != nil || len(first) != 5 {
		t.Fatalf("Ask(5) = %d configs, %v", len(first), err)
	}
	rest, err := s.Ask(context.Background(), 20, first)
	if err != nil || len(rest) != 7 {
		t.Fatalf("Ask(20) with 5 pending = %d configs, %v; want the other 7", len(rest), err)
	}
	all := append(append([]space.Config(nil), first...), rest...)
	if len(search.KeySet(sp, all)) != 12 {
		t.Fatalf("the two batches hold %d distinct points, want 12", len(search.KeySet(sp, all)))
	}
	if _, err := s.Ask(context.Background(), 1, all); !errors.Is(err, search.ErrPending) {
		t.Fatalf("Ask with every point running = %v, want ErrPending", err)
	}
	for _, c := range all[1:] {
		_ = s.Tell(context.Background(), search.Observation{Config: c, State: search.Complete, Value: 1})
	}
	again, err := s.Ask(context.Background(), 3, nil)
	if err != nil || len(again) != 1 || search.ConfigKey(sp, again[0]) != search.ConfigKey(sp, all[0]) {
		t.Fatalf("Ask after the point was abandoned = %v, %v; want it again", again, err)
	}
	_ = s.Tell(context.Background(), search.Observation{Config: all[0], State: search.Complete, Value: 1})
	if _, err := s.Ask(context.Background(), 1, nil); !errors.Is(err, search.ErrExhausted) {
		t.Fatalf("Ask after every point = %v, want ErrExhausted", err)
	}
}

// Greedy's batch is the rest of one knob's sweep: it cannot choose the
// next knob before the running values are told.
func TestGreedyBatchIsOneKnob(t *testing.T) {
	sp, f := searchtest.GreedyLandscape()
	s, err := New(context.Background(), "greedy", sp, 1, nil, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for round := 0; round < 10; round++ {
		cs, err := s.Ask(context.Background(), 10, nil)
		if errors.Is(err, search.ErrExhausted) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Ask(context.Background(), 1, cs); !errors.Is(err, search.ErrPending) {
			t.Fatalf("round %d: Ask with the knob's values running = %v, want ErrPending", round, err)
		}
		got = append(got, strings.Join(searchtest.Summaries(cs), " | "))
		for _, c := range cs {
			_ = s.Tell(context.Background(), f(c))
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
		err := Check(c.name, c.objs)
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Check(%q, %d) = %v, want %q", c.name, c.objs, err, c.want)
		}
	}
	// The defaults a space file gets exist and take any number of
	// objectives: a file that names no sampler never fails the check.
	for _, prior := range []string{"", space.PriorSim, space.PriorNone} {
		if err := Check(space.DefaultSampler(prior), 2); err != nil {
			t.Errorf("the default sampler with prior %q: %v", prior, err)
		}
	}
	sp := searchtest.TestSpace("tpe")
	sp.Objectives = append(sp.Objectives, searchtest.MinObj("z"))
	if _, err := New(context.Background(), "tpe", sp, 1, nil, zerolog.Nop(), search.Options{}); err == nil {
		t.Error("New built tpe for two objectives")
	}
}

// noLie hides a model's liar, for a baseline that excludes pending
// configs only.
type noLie struct{ search.Model }

// While peers run the configs the model wants most, a liar's batches
// land in their grid neighbourhood less often than the same sampler's
// with exclusion only; neither proposes a pending config. Deterministic
// for the seed: the three samplers below start from one state.
func TestLiarsSpreadBatchesAwayFromPendingConfigs(t *testing.T) {
	sp, f := searchtest.MOLandscape()
	sp.Objectives = sp.Objectives[:1]
	rng := rand.New(rand.NewSource(7))
	var history []search.Observation
	for range 20 {
		c := sp.WithTargetEngine(sp.Sample(rng))
		v := f(c)
		history = append(history, search.Observation{Config: c, State: search.Complete, Value: v[0], Values: v[:1]})
	}
	for _, tc := range []struct{ pending, n int }{{1, 1}, {2, 1}, {4, 1}, {4, 4}, {8, 2}} {
		t.Run(fmt.Sprintf("pending=%d/n=%d", tc.pending, tc.n), func(t *testing.T) {
			build := func(lie bool) search.Sampler {
				s, err := New(context.Background(), "motpe", sp, 3, history, zerolog.Nop(), search.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if g := s.(*search.Guard); !lie {
					g.Model = noLie{g.Model}
				}
				return s
			}
			// The pending configs are the model's own favourites: what
			// peers asked earlier got.
			pending, err := build(false).Ask(context.Background(), tc.pending, nil)
			if err != nil {
				t.Fatal(err)
			}
			base, liar := nearPending(t, sp, build(false), pending, tc.n), nearPending(t, sp, build(true), pending, tc.n)
			if liar >= base {
				t.Errorf("%d of the liar's proposals next to a pending config, %d with exclusion only; want fewer", liar, base)
			}
		})
	}
}

// nearPending asks 12 batches of n with the same pending configs and
// counts the proposals in a pending config's grid neighbourhood; it fails
// the test on a pending config proposed.
func nearPending(t *testing.T, sp *space.Space, s search.Sampler, pending []space.Config, n int) int {
	t.Helper()
	busy, near := search.KeySet(sp, pending), 0
	for range 12 {
		cs, err := s.Ask(context.Background(), n, pending)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if busy[search.ConfigKey(sp, c)] {
				t.Fatalf("proposed pending config %v", c)
			}
			for _, p := range pending {
				if neighbours(sp, c, p) {
					near++
					break
				}
			}
		}
	}
	return near
}

// neighbours reports whether two configs differ in one knob at most, by
// one step of its grid (any value of a categorical, or its presence).
func neighbours(sp *space.Space, a, b space.Config) bool {
	a, b = sp.WithTargetEngine(a), sp.WithTargetEngine(b)
	diff := 0
	for _, p := range sp.Params {
		va, inA := a[p.Name]
		vb, inB := b[p.Name]
		if inA && inB && space.Normalize(va) == space.Normalize(vb) || !inA && !inB {
			continue
		}
		diff++
		if grid, ok := p.Grid(); ok && inA && inB && p.Kind != space.Categorical && gridStep(grid, va, vb) > 1 {
			return false
		}
	}
	return diff <= 1
}

// gridStep is how many steps apart two numeric values are on the grid.
func gridStep(grid []any, a, b any) int {
	idx := func(v any) int {
		x, _ := space.Number(v, true)
		best := 0
		for i, g := range grid {
			y, _ := space.Number(g, true)
			z, _ := space.Number(grid[best], true)
			if math.Abs(y-x) < math.Abs(z-x) {
				best = i
			}
		}
		return best
	}
	d := idx(a) - idx(b)
	return max(d, -d)
}
