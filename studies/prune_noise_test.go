package studies

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Pruning respects the noise the study measured: with a config measured
// twice 30% apart, a trial 25% behind an incumbent is within the noise
// and runs on; without repeats the default margin decides.
func TestPruneMarginFollowsMeasuredNoise(t *testing.T) {
	sp, trials := guardFixture(t)
	def := search.DefaultPruneRule()
	if r := noiseAware(&def, sp, trials); r.Margin != def.Margin {
		t.Errorf("no repeats: margin %v, want the rule's %v", r.Margin, def.Margin)
	}
	if noiseAware(nil, sp, trials) != nil {
		t.Error("no rule (--no-prune) gained one")
	}
	again := trials[2]
	again.Number, again.Origin = 4, "repeat"
	again.Metrics = map[string]map[string]float64{"balanced": {"total_tps": 9000 * 1.35}, "sharegpt": {"total_tps": 5900}}
	noisy := append(append([]store.Trial(nil), trials...), again)
	cv, df := noiseCV(sp, noisy)
	r := noiseAware(&def, sp, noisy)
	if df != 1 || r.Margin != noiseMargins*cv || r.Margin <= def.Margin {
		t.Fatalf("measured CV %v (%d degrees of freedom): margin %v, want %v", cv, df, r.Margin, noiseMargins*cv)
	}
	cur := search.Checkpoint{Profile: "balanced", Step: 5, Values: []float64{9000}}
	inc := search.Checkpoint{Profile: "balanced", Step: 5, Values: []float64{12000}}
	objs := []space.Objective{sp.Objectives[0]}
	if prune, _ := def.ShouldPrune(cur, []search.Checkpoint{inc}, objs); !prune {
		t.Fatal("the fixture must be pruned under the default margin")
	}
	if prune, why := r.ShouldPrune(cur, []search.Checkpoint{inc}, objs); prune {
		t.Errorf("pruned within the measured noise: %s", why)
	}
	if def.Margin != search.DefaultPruneRule().Margin {
		t.Error("the study's own rule was changed")
	}
}

// driftingRunner measures every config's second run at half its first,
// as a shared CPU whose load doubled would.
type driftingRunner struct {
	checkpointRunner
	seen map[string]int
}

func (d *driftingRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	d.seen[t.Config.Key()]++
	if d.seen[t.Config.Key()] == 1 {
		return d.checkpointRunner.Run(ctx, t)
	}
	half := t
	if t.Judge != nil {
		half.Judge = func(c objective.Checkpoint) objective.Verdict {
			m := map[string]float64{}
			for k, v := range c.Metrics {
				m[k] = v / 2
			}
			c.Metrics = m
			return t.Judge(c)
		}
	}
	return d.checkpointRunner.Run(ctx, half)
}

// A repeat measures the noise, so it is never pruned, however far its
// checkpoints trail its own first run.
func TestRepeatsAreNotPruned(t *testing.T) {
	sp := studySpace(t, 6, "")
	sp.Study.Sampler = "grid"
	sp.Baseline = space.Config{"engine": "vllm", "max_running": int64(256), "mem_fraction": 0.8, "dp": int64(1)}
	st, dir := openStore(t)
	rule := search.DefaultPruneRule()
	r := &driftingRunner{seen: map[string]int{}}
	if err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: r, Dir: dir, Log: zerolog.Nop(), Prune: &rule, Repeat: 2}); err != nil {
		t.Fatal(err)
	}
	trials, _ := st.Trials(context.Background())
	repeats := 0
	for _, tr := range trials {
		if tr.Origin == "repeat" {
			repeats++
			if tr.State == store.Pruned {
				t.Errorf("repeat trial %d pruned: %s", tr.Number, tr.Reason)
			}
		}
	}
	if repeats == 0 || trials[1].Origin != "repeat" || trials[1].State != store.Complete {
		t.Fatalf("want the baseline repeated (complete) as trial 2; trials: %+v", trials[:2])
	}
}
