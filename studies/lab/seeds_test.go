package lab

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// tinySpace is the Qwen3 landscape cut to two configs, so that an
// exhaustive grid per reality costs two simulations.
const tinySpace = `
[study]
name = "lab-tiny"
n_trials = 3

[target]
runner = "sim"
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 1

[[objectives]]
metric = "mean_e2e_s"
direction = "minimize"

[profiles]
run = ["sharegpt-bs-4"]

[params.engine]
values = ["vllm"]

[params.model_variant]
values = ["BF16", "FP8"]
`

func runsBySeed(runs []Run) (seeds []int, by map[int]Run) {
	by = map[int]Run{}
	for _, r := range runs {
		seeds = append(seeds, r.Seed)
		by[r.Seed] = r
	}
	return seeds, by
}

// sameRun compares what a seed decides: the curves, the reality's
// optimum and the confirmation check.
func sameRun(t *testing.T, what string, a, b Run) {
	t.Helper()
	if !reflect.DeepEqual(a.Best, b.Best) || !reflect.DeepEqual(a.GPUHours, b.GPUHours) || a.Optimum != b.Optimum || !reflect.DeepEqual(a.Confirm, b.Confirm) {
		t.Errorf("%s seed %d differs with another first seed:\n%+v\n%+v", what, a.Seed, a, b)
	}
}

// Fresh seeds: a run from --first-seed numbers its seeds as they are, and
// a seed's study, noise and reality are those of the same seed in a run
// from seed 1, so fresh seeds extend the first ones rather than redraw them.
func TestFirstSeedRunsTheSameSeedsFurtherOn(t *testing.T) {
	sp, err := space.Parse(context.Background(), "tiny.toml", tinySpace, studies.SpaceOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opt := Options{Landscape: "tiny", Samplers: []string{"random"}, Trials: 3, NoiseCV: 0.05, Dir: t.TempDir(), Log: zerolog.Nop()}
	from1, fresh := opt, opt
	from1.Seeds = 3
	fresh.Seeds, fresh.FirstSeed = 2, 2

	t.Run("one reality", func(t *testing.T) {
		o := NewOracle(sp)
		a, err := Evaluate(ctx, o, &Truth{Optimum: 0.5}, sp, from1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Evaluate(ctx, o, &Truth{Optimum: 0.5}, sp, fresh)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, "one reality", a.Runs, b.Runs)
	})
	t.Run("a reality per seed", func(t *testing.T) {
		a, err := EvaluatePerturbed(ctx, sp, []Options{from1})
		if err != nil {
			t.Fatal(err)
		}
		b, err := EvaluatePerturbed(ctx, sp, []Options{fresh})
		if err != nil {
			t.Fatal(err)
		}
		compare(t, "perturbed", a[0].Runs, b[0].Runs)
		_, by := runsBySeed(b[0].Runs)
		if by[2].Optimum == by[3].Optimum {
			t.Errorf("seeds 2 and 3 share the optimum %v: not each its own reality", by[2].Optimum)
		}
	})
}

func compare(t *testing.T, what string, from1, fresh []Run) {
	t.Helper()
	s1, a := runsBySeed(from1)
	s2, b := runsBySeed(fresh)
	if !slices.Equal(s1, []int{1, 2, 3}) || !slices.Equal(s2, []int{2, 3}) {
		t.Fatalf("%s: seeds %v from 1 and %v from 2, want [1 2 3] and [2 3]", what, s1, s2)
	}
	for _, seed := range s2 {
		sameRun(t, what, a[seed], b[seed])
	}
}

// The table names fresh seeds, and keeps its wording from seed 1.
func TestTableNamesFreshSeeds(t *testing.T) {
	for _, c := range []struct {
		first, seeds int
		want         string
	}{{0, 20, "20 seeds"}, {1, 20, "20 seeds"}, {21, 20, "20 seeds (21-40)"}, {7, 1, "1 seeds (7-7)"}} {
		if got := fmtSeeds(Options{FirstSeed: c.first, Seeds: c.seeds}); got != c.want {
			t.Errorf("first seed %d, %d seeds: %q, want %q", c.first, c.seeds, got, c.want)
		}
	}
}
