package studies

import (
	"testing"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// Seed 15 of the widened family (GLM-5.2, total tok/s): the incumbent
// (256 running) and the optimum (512 running) as trial 10 measured them;
// the optimum's waves trough at 50%, where the incumbent's crest.
var (
	waveIncumbent = []float64{4091, 8182, 6163, 8217, 10271, 8229, 9600, 8342, 9385}
	waveOptimum   = []float64{2195, 4391, 6586, 8782, 6252, 6610, 7711, 8813, 9914}
)

func withSeries(t store.Trial, profile string, vals []float64) store.Trial {
	for i, v := range vals {
		t.Intermediate = append(t.Intermediate, search.Checkpoint{Profile: profile, Step: i + 1, Values: []float64{v}})
	}
	return t
}

// Through the study's judge, seed 15's optimum runs to the end against
// the incumbent it lost to at 50% on main, a steady trial at half the
// incumbent's pace is still stopped at 30%, and a confirmation is never
// judged.
func TestAWaveTroughIsNotPruned(t *testing.T) {
	sp, _ := guardFixture(t)
	inc := withSeries(store.Trial{Number: 1, State: store.Complete, Origin: "baseline", Config: sp.Baseline,
		Metrics: map[string]map[string]float64{"balanced": {"total_tps": 10428}, "sharegpt": {"total_tps": 6000}}}, "balanced", waveIncumbent)
	rule := search.DefaultPruneRule()
	l := &loop{RunOptions: RunOptions{Space: sp, Prune: &rule}, trials: []store.Trial{inc}}
	run := func(vals []float64) (int, objective.Verdict) {
		j := l.judge("prior")
		for i, v := range vals {
			if v := j(objective.Checkpoint{Profile: "balanced", Step: i + 1, Metrics: map[string]float64{"total_tps": v}}); v.Stop {
				return i + 1, v
			}
		}
		return 0, objective.Verdict{}
	}
	if step, v := run(waveOptimum); step != 0 {
		t.Errorf("the wave trial was pruned at %d0%% of the requests: %s", step, v.Why)
	}
	step, v := run([]float64{4100, 4100, 4100, 4100, 4100, 4100, 4100, 4100, 4100})
	if step != 3 {
		t.Errorf("a steady trial half the incumbent's was stopped at step %d, want 3", step)
	}
	// Projected from the envelopes' ratio: 4,100 / 8,182 of the final.
	if want := 4100 * 10428 / 8182.0; len(v.Projected) != 1 || v.Projected[0] < want-1 || v.Projected[0] > want+1 {
		t.Errorf("projected %v, want [%.0f]", v.Projected, want)
	}
	if j := l.judge("confirm"); j(objective.Checkpoint{Profile: "balanced", Step: 5, Metrics: map[string]float64{"total_tps": 1}}).Stop {
		t.Error("a confirmation was pruned")
	}
}

// The optimum the wave rule spared finishes ahead of the incumbent on one
// measurement; the next trial measures it again, long before the noise
// repeat's quarter-way mark. A trial that would have finished anyway is
// not re-measured early, and without pruning nothing is spared.
func TestASparedLeaderIsMeasuredAgain(t *testing.T) {
	sp, cfg, trial := waveStudy(t)
	rule := search.DefaultPruneRule()
	trials := []store.Trial{
		trial(1, "baseline", cfg(64), 5000, []float64{4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000}),
		trial(2, "prior", cfg(256), 10428, waveIncumbent),
		trial(3, "prior", cfg(512), 11016, waveOptimum),
	}
	l := &loop{RunOptions: RunOptions{Space: sp, Prune: &rule, Confirm: 0.1}, trials: trials}
	got, ok := l.confirmNext()
	if !ok || got.origin != "confirm" || got.cfg.Key() != cfg(512).Key() {
		t.Errorf("next = %+v, %v; want the spared optimum confirmed", got, ok)
	}
	if s := l.confirmState(4); s.SparedUsed != 0 || !s.Ranked[0].Spared || s.Ranked[1].Spared {
		t.Errorf("state %+v: want the leader alone spared, nothing used", s)
	}
	l.trials = append(l.trials, trial(4, "confirm", cfg(512), 10900, waveOptimum))
	if s := l.confirmState(4); s.SparedUsed != 1 {
		t.Errorf("spared re-measurements %d, want 1", s.SparedUsed)
	}
	steady := trials[:2:2]
	steady = append(steady, trial(3, "prior", cfg(128), 11016, []float64{4500, 9000, 9000, 9000, 10500, 10500, 10500, 10500, 10500}))
	l = &loop{RunOptions: RunOptions{Space: sp, Prune: &rule, Confirm: 0.1}, trials: steady}
	if got, ok := l.confirmNext(); ok {
		t.Errorf("next = %+v: a leader the step rule never stopped was measured again early", got)
	}
	l = &loop{RunOptions: RunOptions{Space: sp, Confirm: 0.1}, trials: trials}
	if got, ok := l.confirmNext(); ok {
		t.Errorf("next = %+v without pruning, want nothing", got)
	}
}

// waveStudy is the wave tests' space, its configs by max_running, and a
// builder of their complete trials with a checkpoint series.
func waveStudy(t *testing.T) (*space.Space, func(int64) space.Config, func(int, string, space.Config, float64, []float64) store.Trial) {
	t.Helper()
	sp := studySpace(t, 40, "")
	cfg := func(mr int64) space.Config {
		return sp.WithTargetEngine(space.Config{"max_running": mr, "mem_fraction": 0.8})
	}
	trial := func(n int, origin string, c space.Config, tps float64, series []float64) store.Trial {
		return withSeries(store.Trial{Number: n, State: store.Complete, Origin: origin, Config: c,
			Metrics: map[string]map[string]float64{"p": {"total_tps": tps}}}, "p", series)
	}
	return sp, cfg, trial
}
