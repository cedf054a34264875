package studies

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

// BenchmarkConfirmedBest measures what confirmation buys under noise: 40
// seeds of the 20-trial Qwen3-8B study of noisySimSpace with 10% and 20%
// simulated noise, at confirmation shares 0, 0.1 and 0.2, and reports
// how far the reported best's noiseless value is below the noiseless
// value of the best config the study measured (mean and worst, %), and
// on how many seeds it is more than 1% below.
//
//	go test ./studies -run '^$' -bench ConfirmedBest -benchtime 1x
func BenchmarkConfirmedBest(b *testing.B) {
	for _, cv := range []float64{0.1, 0.2} {
		for _, share := range []float64{0, 0.1, 0.2} {
			b.Run(fmt.Sprintf("cv=%.1f/share=%.1f", cv, share), func(b *testing.B) {
				for range b.N {
					gaps := confirmedGaps(b, cv, share, 40)
					slices.Sort(gaps)
					off := 0
					for _, g := range gaps {
						if g > 1 {
							off++
						}
					}
					b.ReportMetric(mean(gaps), "mean_gap_%")
					b.ReportMetric(gaps[len(gaps)-1], "worst_gap_%")
					b.ReportMetric(float64(off), "seeds_off_1%")
				}
			})
		}
	}
}

// confirmedGaps runs the noisy study on seeds 1..n and returns, per seed,
// the reported best's noiseless shortfall from the best measured config.
func confirmedGaps(b *testing.B, cv, share float64, n int) []float64 {
	base := noisySimSpace(b, 20)
	base.Target.Sim.NoiseCV = cv
	truth := noiselessTruth(b, *base)
	var gaps []float64
	for seed := int64(1); seed <= int64(n); seed++ {
		sp := *base
		sp.Study.Seed = seed
		dir := studydir.Of(b.TempDir(), "bench")
		st, err := store.Open(context.Background(), dir.DB(), store.Create)
		if err != nil {
			b.Fatal(err)
		}
		rule := search.DefaultPruneRule()
		err = Run(context.Background(), RunOptions{Space: &sp, Store: st, Runner: objective.NewSimRunner(), Dir: dir, Log: zerolog.Nop(), Prune: &rule, Confirm: share})
		trials, _ := st.Trials(context.Background())
		st.Close()
		if err != nil {
			b.Fatal(err)
		}
		best := 0.0
		for _, tr := range trials {
			if tr.State == store.Complete {
				best = max(best, truth(tr.Config))
			}
		}
		got := truth(BuildReport(&sp, trials, nil).Recommendations[0].Config)
		gaps = append(gaps, (best-got)/best*100)
	}
	return gaps
}

// noiselessTruth is a config's total_tps on sp's simulator without noise.
func noiselessTruth(b *testing.B, sp space.Space) func(space.Config) float64 {
	sp.Target.Sim.NoiseCV = 0
	runner, cache := objective.NewSimRunner(), map[string]float64{}
	return func(c space.Config) float64 {
		if v, ok := cache[c.Key()]; ok {
			return v
		}
		res, err := runner.Run(context.Background(), objective.Trial{Number: 1, Config: c, Target: sp.Target, Profiles: sp.Profiles, Dir: b.TempDir(), Seed: 1})
		if err != nil {
			b.Fatalf("noiseless %v: %v", c.Summary(), err)
		}
		cache[c.Key()] = res.Metrics[sp.Profiles[0].Name]["total_tps"]
		return cache[c.Key()]
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
