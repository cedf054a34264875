package search

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/servetune/servetune/internal/cputime"
	"github.com/servetune/servetune/space"
)

// everyPairVerdict is ShouldPruneSeries as it was before it skipped the
// incumbents a trial is not worse than by the rule's margin: every
// leading incumbent's mismatch computed. The test's oracle.
func everyPairVerdict(r PruneRule, series []Checkpoint, incumbents [][]Checkpoint, objs []space.Objective) (bool, string) {
	now := series[len(series)-1]
	cur, _ := Envelope(series, now.Profile, now.Step, objs)
	if !r.judgeable(cur, objs) {
		return false, ""
	}
	m := r.margin(cur.Step)
	if cur.Violation > m {
		return true, violates(cur)
	}
	for _, s := range incumbents {
		inc, ok := Envelope(s, cur.Profile, cur.Step, objs)
		if !ok || !leads(inc, objs) {
			continue
		}
		w := r.mismatch(series, s, cur.Profile, cur.Step, objs)
		for i := range w {
			w[i] = max(w[i], m)
		}
		if worseEach(cur.Values, inc.Values, objs, w) {
			return true, fmt.Sprintf("worse than an incumbent by more than %.0f%% on every objective at %d0%% of the requests", slices.Min(w)*100, cur.Step)
		}
	}
	return false, ""
}

// waveSeries is a two-objective trial of 9 checkpoints: a level times a
// wave of its own phase and depth on each objective.
func waveSeries(rng *rand.Rand) []Checkpoint {
	out := make([]Checkpoint, 9)
	tps, tpot := 500+1000*rng.Float64(), 5+20*rng.Float64()
	phase, depth := rng.Intn(4), 0.3*rng.Float64()
	for i := range out {
		f := 1.0
		if (i+phase)%4 == 0 {
			f -= depth
		}
		out[i] = Checkpoint{Profile: "p", Step: i + 1, Values: []float64{tps * f, tpot / f}}
	}
	return out
}

// Skipping the incumbents that cannot prune a trial leaves every verdict
// as it was, step by step, along 200 seeded trials judged against fronts
// of 1–60 incumbents with waves out of phase.
func TestShouldPruneSeriesSkipsOnlyWhatCannotPrune(t *testing.T) {
	r, objs := DefaultPruneRule(), []space.Objective{maxObj("tps"), minObj("tpot")}
	rng := rand.New(rand.NewSource(5))
	pruned := 0
	for trial := range 200 {
		incs := make([][]Checkpoint, 1+rng.Intn(60))
		for i := range incs {
			incs[i] = waveSeries(rng)
		}
		s := waveSeries(rng)
		for i := range s {
			got, why := r.ShouldPruneSeries(s[:i+1], incs, objs)
			want, wantWhy := everyPairVerdict(r, s[:i+1], incs, objs)
			if got != want || why != wantWhy {
				t.Fatalf("trial %d at step %d: pruned %v (%q), judged against every pair %v (%q)", trial, s[i].Step, got, why, want, wantWhy)
			}
			if want {
				pruned++
				break
			}
		}
	}
	if pruned == 0 || pruned == 200 {
		t.Fatalf("%d of 200 trials pruned: the check sees one verdict only", pruned)
	}
	t.Logf("%d of 200 trials pruned", pruned)
}

// frontSeries is a trial on a trade-off, throughput and latency both
// rising with t in [0, 1], with a wave of its own phase and depth.
func frontSeries(rng *rand.Rand, t float64) []Checkpoint {
	out := make([]Checkpoint, 9)
	phase, depth := rng.Intn(4), 0.3*rng.Float64()
	for i := range out {
		f := 1.0
		if (i+phase)%4 == 0 {
			f -= depth
		}
		out[i] = Checkpoint{Profile: "p", Step: i + 1, Values: []float64{(500 + 1000*t) * f, (5 + 20*t) / f}}
	}
	return out
}

// BenchmarkShouldPruneSeries judges a trial on the front at each of its
// steps against a front of n incumbents spread along the trade-off, waves
// out of phase: as a long two-objective study's pruning does at every
// checkpoint, where the front it judges against grows with the study and
// no incumbent prunes a trial on the front. cpu-ms/op is the process's CPU
// time per judged trial.
//
//	go test ./search -run '^$' -bench ShouldPruneSeries
func BenchmarkShouldPruneSeries(b *testing.B) {
	r, objs := DefaultPruneRule(), []space.Objective{maxObj("tps"), minObj("tpot")}
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("incumbents=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewSource(5))
			incs := make([][]Checkpoint, n)
			for i := range incs {
				incs[i] = frontSeries(rng, rng.Float64())
			}
			s := frontSeries(rng, 0.5)
			b.ResetTimer()
			cpu := cputime.Process()
			for range b.N {
				for i := range s {
					r.ShouldPruneSeries(s[:i+1], incs, objs)
				}
			}
			cputime.Report(b, cpu)
		})
	}
}
