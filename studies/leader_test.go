package studies

import (
	"context"
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
			remeasured := 0
			for i := 1; i <= len(trials); i++ {
				ts := trials[:i]
				want := ""
				if recs := BuildReport(sp, ts, nil).Recommendations; len(recs) > 0 {
					want = recs[0].Config.Key()
				}
				cv, df := noiseCV(sp, ts)
				if got := leaderKey(sp, ts, configGroups(sp, ts), Baseline(ts), cv, df); got != want {
					t.Errorf("after %d trials: leader %s, the report recommends %s", i, got, want)
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
