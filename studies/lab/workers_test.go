package lab

import (
	"context"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// virtualRun runs one single-objective motpe study with workers trials
// at once on the virtual clock and returns, in finish order, the true
// best after each counted trial and the virtual time it finished.
func virtualRun(t testing.TB, landscape string, seed, workers, trials int) ([]float64, []time.Duration) {
	t.Helper()
	ctx := context.Background()
	base, err := Load(landscape)
	if err != nil {
		t.Fatal(err)
	}
	sp := *base
	sp.Objectives = sp.Objectives[:1]
	sp.Study.Sampler, sp.Study.Seed, sp.Study.NTrials = "motpe", int64(seed), trials
	sp.Study.Name = fmt.Sprintf("%s-%d-w%d", landscape, seed, workers)
	o := NewOracle(&sp)
	dir := studydir.Of(t.TempDir(), sp.Study.Name)
	st, err := store.Open(ctx, dir.DB(), store.Create)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err = studies.Run(ctx, studies.RunOptions{Space: &sp, Store: st, Runner: &noisyRunner{o: o, cv: 0.05, seed: int64(seed)}, Dir: dir,
		Log: zerolog.Nop(), Workers: workers, Virtual: true, WorkerID: "lab", Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := st.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].End.Before(ts[j].End) })
	r := score(ctx, o, &sp, &Truth{}, "motpe", seed, ts)
	var at []time.Duration
	for _, tr := range ts {
		if !tr.BrokeRule() {
			at = append(at, tr.End.Sub(t0))
		}
	}
	return r.Best, at
}

// reachBy is when a run first reports a value at least as good as target.
func reachBy(best []float64, at []time.Duration, target float64, maximize bool) (time.Duration, bool) {
	for i, v := range best {
		if !math.IsNaN(v) && (v == target || (v > target) == maximize) {
			return at[i], true
		}
	}
	return 0, false
}

// Four workers reach the sequential study's best@30 sooner than one on
// most seeds: the claim docs/benchmarks.md makes is a median over seeds,
// and a single seed's motpe run can miss it (seed 1 does since the
// all-reduce refit moved vLLM's points), so one seed would test luck.
func TestWorkersReachTheSequentialBestSooner(t *testing.T) {
	base, _ := Load("glm52")
	maximize := base.Objectives[0].Direction == "maximize"
	const seeds = 3
	sooner := 0
	for seed := 1; seed <= seeds; seed++ {
		seqBest, seqAt := virtualRun(t, "glm52", seed, 1, 30)
		best4, at4 := virtualRun(t, "glm52", seed, 4, 60)
		when, ok := reachBy(best4, at4, seqBest[len(seqBest)-1], maximize)
		if ok && when < seqAt[len(seqAt)-1] {
			sooner++
		} else {
			t.Logf("seed %d: 4 workers reached the sequential best@30 %v (at %s), sequential at %s", seed, ok, when, seqAt[len(seqAt)-1])
		}
	}
	if sooner*2 <= seeds {
		t.Errorf("4 workers reached the sequential best@30 sooner on %d of %d seeds, want a majority", sooner, seeds)
	}
}

// BenchmarkWorkersFigures prints the docs/benchmarks.md figures: median
// over seeds of N workers' wall-clock to reach the sequential study's
// best@30 as a share of the sequential study's own time to it, and of
// best@60 relative to sequential. LAB_SEEDS sets the seeds (default 5);
// LAB_LANDSCAPES and LAB_WORKERS (comma-separated) narrow the runs while
// iterating, LAB_VERBOSE=1 prints every seed.
func BenchmarkWorkersFigures(b *testing.B) {
	seeds, _ := strconv.Atoi(os.Getenv("LAB_SEEDS"))
	if seeds < 1 {
		seeds = 5
	}
	lands := envList("LAB_LANDSCAPES", Landscapes())
	var workers []int
	for _, w := range envList("LAB_WORKERS", []string{"2", "4", "8"}) {
		n, err := strconv.Atoi(w)
		if err != nil || n < 2 {
			b.Fatalf("LAB_WORKERS: %q is not a worker count above 1", w)
		}
		workers = append(workers, n)
	}
	for range b.N {
		for _, land := range lands {
			figures(b, land, seeds, workers, os.Getenv("LAB_VERBOSE") == "1")
		}
	}
}

// envList is the comma-separated list in the environment variable, or
// def when it is unset.
func envList(name string, def []string) []string {
	if v := os.Getenv(name); v != "" {
		return strings.Split(v, ",")
	}
	return def
}

func figures(b *testing.B, land string, seeds int, workers []int, verbose bool) {
	base, _ := Load(land)
	maximize := base.Objectives[0].Direction == "maximize"
	share, quality, missed := map[int][]float64{}, map[int][]float64{}, map[int]int{}
	for seed := 1; seed <= seeds; seed++ {
		seqBest, seqAt := virtualRun(b, land, seed, 1, 60)
		// The sequential study's own time to its best@30: when it first
		// found the config it reports after 30 trials.
		seqWhen, _ := reachBy(seqBest, seqAt, seqBest[29], maximize)
		for _, w := range workers {
			best, at := virtualRun(b, land, seed, w, 60)
			when, ok := reachBy(best, at, seqBest[29], maximize)
			if !ok {
				missed[w]++
				when = time.Duration(math.MaxInt64)
			}
			share[w] = append(share[w], when.Seconds()/seqWhen.Seconds())
			quality[w] = append(quality[w], best[len(best)-1]/seqBest[len(seqBest)-1])
			if verbose {
				fmt.Printf("%s seed=%d workers=%d: share %.3f reached=%v best@60 %.4f of sequential\n",
					land, seed, w, share[w][len(share[w])-1], ok, quality[w][len(quality[w])-1])
			}
		}
	}
	for _, w := range workers {
		fmt.Printf("%s workers=%d: to sequential best@30 median %.3f of sequential time (%d/%d seeds never); best@60 median %.4f of sequential\n",
			land, w, median(share[w]), missed[w], seeds, median(quality[w]))
	}
}
