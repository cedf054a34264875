package studies

import (
	"context"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/studies/store"
)

// Confirmation's leader is the report's first recommendation, computed
// without the rest of the report: at every point of a study, with one
// objective and two, with confirmations (configs measured more than once)
// and guards against the baseline.
func TestLeaderKeyIsTheReportsFirstRecommendation(t *testing.T) {
	for name, extra := range map[string]string{
		"one objective": "",
		"two objectives": `
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
`,
		"guarded": `
[[constraints]]
expr = "p99_ttft_ms <= 3000"
`,
	} {
		t.Run(name, func(t *testing.T) {
			sp := studySpace(t, 30, extra)
			st, dir := openStore(t)
			if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(), Confirm: 0.3}); err != nil {
				t.Fatal(err)
			}
			trials, err := st.Trials(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			remeasured, x := 0, newTrialIndex(sp, nil, nil)
			for i := 1; i <= len(trials); i++ {
				ts := trials[:i]
				x.added(ts, i-1)
				want := ""
				if recs := BuildReport(sp, ts, nil).Recommendations; len(recs) > 0 {
					want = recs[0].Config.Key()
				}
				cv, df := noiseCV(sp, ts)
				gs := configGroups(sp, ts)
				if got := leaderKey(sp, ts, gs, nil, Baseline(ts), cv, df); got != want {
					t.Errorf("after %d trials: leader %s, the report recommends %s", i, got, want)
				}
				all, ranked := x.groups.groups(sp, ts, x.baselineOf(ts))
				sameGroups(t, i, all, gs)
				sameGroups(t, i, ranked, gs.feasible(sp))
				if got := leaderKey(sp, ts, all, ranked, x.baselineOf(ts), cv, df); got != want {
					t.Errorf("after %d trials: leader %s from the index's groups, the report recommends %s", i, got, want)
				}
				if isRemeasure(ts[i-1].Origin) && ts[i-1].State == store.Complete {
					remeasured++
				}
			}
			if remeasured == 0 {
				t.Error("no config was measured twice: the means were not exercised")
			}
		})
	}
}

// sameGroups holds the index's groups to configGroups': the same configs
// in the same order, with the same runs, means, violation and verdict.
func sameGroups(t *testing.T, n int, got, want groups) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("after %d trials: %d groups, want %d", n, len(got), len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.key != w.key || !slices.Equal(g.runs, w.runs) || !slices.Equal(g.mean, w.mean) || g.violation != w.violation || g.disputed != w.disputed {
			t.Errorf("after %d trials, group %d: %+v, want %+v", n, i, *g, *w)
		}
	}
}
