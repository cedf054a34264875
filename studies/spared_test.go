package studies

import (
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// sparedByDefinition is the spared verdict by its definition: trial i
// judged against the incumbents and the noise-aware margin of the trials
// before it, ranked afresh.
func sparedByDefinition(l *loop, i int) bool {
	t := l.trials[i]
	if l.Prune == nil || t.State != store.Complete || isRemeasure(t.Origin) || t.ReusedFrom != 0 {
		return false
	}
	before := l.trials[:i]
	var series [][]search.Checkpoint
	for _, inc := range incumbentsOf(l.Space, before) {
		series = append(series, inc.Intermediate)
	}
	return noiseAware(l.Prune, l.Space, before).Spared(t.Intermediate, series, l.Space.Objectives)
}

// checkSpared replays trials as a sequential loop sees them (each starts
// running, then finishes), and reads them again as a resumed loop does
// (one pass), and holds both verdicts to the definition; it returns how
// many were spared.
func checkSpared(t *testing.T, sp *space.Space, rule search.PruneRule, trials []store.Trial) int {
	t.Helper()
	live := &loop{RunOptions: RunOptions{Space: sp, Prune: &rule}}
	for _, tr := range trials {
		running := tr
		running.State, running.Metrics, running.Intermediate = store.Running, nil, nil
		live.record(running)
		live.viewFor(running)
		live.replace(tr)
	}
	resumed := &loop{RunOptions: RunOptions{Space: sp, Prune: &rule}, trials: trials}
	n := 0
	for i := range trials {
		want := sparedByDefinition(resumed, i)
		judged := trials[i].State == store.Complete && live.judgedSpared(&trials[i])
		if got, ok := live.spare.verdict[trials[i].Number]; ok != judged || got != want {
			t.Errorf("trial %d (%s): spared %v (given: %v) as it finished, want %v", trials[i].Number, trials[i].Origin, got, ok, want)
		}
		if got := resumed.spared(i); got != want {
			t.Errorf("trial %d (%s): spared %v on a resume, want %v", trials[i].Number, trials[i].Origin, got, want)
		}
		n += b2i(want)
	}
	return n
}

// A trial's spared verdict, given once as it finishes or in one pass on a
// resume, is the one its trials before it give: seed 15's wave optimum
// is spared, the steady trial is not, and every trial of a noisy
// sequential study with confirmations agrees.
func TestSparedVerdictIsTheTrialsBefore(t *testing.T) {
	sp, cfg, trial := waveStudy(t)
	rule := search.DefaultPruneRule()
	trials := []store.Trial{
		trial(1, "baseline", cfg(64), 5000, []float64{4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000, 4000}),
		trial(2, "prior", cfg(256), 10428, waveIncumbent),
		trial(3, "prior", cfg(512), 11016, waveOptimum),
		trial(4, "confirm", cfg(512), 10900, waveOptimum),
		trial(5, "prior", cfg(128), 11016, []float64{4500, 9000, 9000, 9000, 10500, 10500, 10500, 10500, 10500}),
		trial(6, "sampler", cfg(1024), 12000, waveOptimum),
	}
	if n := checkSpared(t, sp, rule, trials); n == 0 {
		t.Error("nothing spared: the wave optimum should be")
	}
	noisy, study := runNoisy(t, 1)
	checkSpared(t, noisy, search.DefaultPruneRule(), study)
}
