package studies

import (
	"math/rand"
	"slices"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// batchIncumbents is what the incumbents were before the trial index:
// search.Front (several objectives) or search.Best over every complete
// trial's point.
func batchIncumbents(sp *space.Space, ts []store.Trial) []int {
	pts, idx := points(sp, ts)
	var win []int
	if len(sp.Objectives) > 1 {
		win = search.Front(pts, sp.Objectives)
	} else if b := search.Best(pts, sp.Objectives); b >= 0 {
		win = []int{b}
	}
	out := []int{}
	for _, w := range win {
		out = append(out, idx[w])
	}
	return out
}

// randomTrials are n trials on a coarse grid of values (ties, dominated
// and equal points), some failed, some over the SLO, the first the
// baseline.
func randomTrials(rng *rand.Rand, n int) []store.Trial {
	ts := make([]store.Trial, n)
	for i := range ts {
		tps, tpot := float64(rng.Intn(8)*100), float64(1+rng.Intn(6))
		m := map[string]float64{"total_tps": tps, "mean_tpot_ms": tpot, "p99_ttft_ms": float64(rng.Intn(5) * 1000)}
		ts[i] = store.Trial{Number: i + 1, Origin: "sampler", State: store.Complete, Config: space.Config{"max_running": int64(i)},
			Metrics: map[string]map[string]float64{"p": m}}
		if i == 0 {
			ts[i].Origin = "baseline"
		}
		if rng.Intn(6) == 0 {
			ts[i].State, ts[i].Metrics = store.Failed, nil
		}
	}
	return ts
}

// The index's incumbents and best are the batch ranking's, whatever the
// order trials complete in (workers finish out of order) and after a
// complete trial is rewritten.
func TestTrialIndexRanksAsTheBatchRanking(t *testing.T) {
	for name, extra := range map[string]string{
		"one objective":  "",
		"two objectives": "[[objectives]]\nmetric = \"mean_tpot_ms\"\ndirection = \"minimize\"\n",
		"guarded":        "[[objectives]]\nmetric = \"mean_tpot_ms\"\ndirection = \"minimize\"\n[[constraints]]\nexpr = \"p99_ttft_ms <= 2000\"\n",
	} {
		t.Run(name, func(t *testing.T) {
			sp := studySpace(t, 100, extra)
			for seed := int64(1); seed <= 40; seed++ {
				rng := rand.New(rand.NewSource(seed))
				final := randomTrials(rng, 1+rng.Intn(60))
				l := &loop{RunOptions: RunOptions{Space: sp}}
				for _, tr := range final { // all start, then finish in a random order
					running := tr
					running.State, running.Metrics = store.Running, nil
					l.record(running)
				}
				for _, i := range rng.Perm(len(final)) {
					l.replace(final[i])
					if got, want := l.index().incumbents(l.trials), batchIncumbents(sp, l.trials); !slices.Equal(got, want) {
						t.Fatalf("seed %d: incumbents %v, the batch ranking's %v", seed, got, want)
					}
				}
				pts, idx := points(sp, l.trials)
				want := -1
				if b := search.Best(pts, sp.Objectives); b >= 0 {
					want = idx[b]
				}
				if got := l.index().ranked(l.trials).best; got != want {
					t.Errorf("seed %d: best %d, search.Best's %d", seed, got, want)
				}
				if got := incumbentsOf(sp, l.trials); len(got) != len(batchIncumbents(sp, l.trials)) {
					t.Errorf("seed %d: incumbentsOf has %d trials, want %d", seed, len(got), len(batchIncumbents(sp, l.trials)))
				}
			}
		})
	}
}

// The index counts what the walks it replaced counted, as trials start,
// finish, are interrupted and retried.
func TestTrialIndexCountsAsTheList(t *testing.T) {
	sp := studySpace(t, 100, "")
	rng := rand.New(rand.NewSource(3))
	l := &loop{RunOptions: RunOptions{Space: sp, Repeat: 1}}
	states := []store.State{store.Complete, store.Failed, store.Infeasible, store.Pruned, store.Interrupted}
	for i := 1; i <= 200; i++ {
		cfg := space.Config{"max_running": int64(rng.Intn(10)), "engine": "vllm"}
		tr := store.Trial{Number: i, Origin: "sampler", Config: cfg, State: store.Running}
		if rng.Intn(10) == 0 {
			tr.Origin = "baseline"
		}
		l.record(tr)
		if rng.Intn(4) > 0 { // most finish; the others stay running
			tr.State, tr.GPUSeconds = states[rng.Intn(len(states))], float64(rng.Intn(3))
			l.replace(tr)
		}
		x := l.index()
		if x.done != store.CountDone(l.trials) {
			t.Fatalf("after %d trials: done %d, CountDone %d", i, x.done, store.CountDone(l.trials))
		}
		if l.spent() != gpuTime(l.trials) {
			t.Fatalf("after %d trials: GPU time %v, the list's %v", i, l.spent(), gpuTime(l.trials))
		}
		for _, c := range []space.Config{cfg, {"max_running": int64(0), "engine": "vllm"}} {
			pruned, other := false, false
			for _, u := range l.trials {
				if u.Config.Key() == c.Key() && u.State != store.Interrupted {
					pruned, other = pruned || u.State == store.Pruned, other || u.State != store.Pruned
				}
			}
			if got := l.prunedOnly(c); got != (pruned && !other) {
				t.Fatalf("after %d trials: prunedOnly(%v) = %v", i, c, got)
			}
		}
		if b, want := l.index().baselineOf(l.trials), Baseline(l.trials); (b == nil) != (want == nil) || b != nil && b.Number != want.Number {
			t.Fatalf("after %d trials: baseline %v, want %v", i, b, want)
		}
	}
}
