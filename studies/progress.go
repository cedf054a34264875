package studies

import (
	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// reporting passes each benchmark checkpoint to the judge unchanged and
// tells OnEvent how far the trial's benchmarks have come, so a live view
// can say "benchmarking 40%".
func (l *loop) reporting(t *store.Trial, judge objective.Judge) objective.Judge {
	return func(c objective.Checkpoint) objective.Verdict {
		l.OnEvent(Event{Kind: TrialPhase, Trial: *t, Phase: objective.Benchmarking,
			Progress: benchProgress(l.Space, c.Profile, c.Step),
			Done:     l.view.done, Total: l.Space.Study.NTrials, Best: l.view.best})
		return judge(c)
	}
}

// benchProgress is the fraction of all profiles' benchmarks done at a
// checkpoint: profiles run in order, each in bench.Checkpoints steps.
func benchProgress(sp *space.Space, profile string, step int) float64 {
	n := len(sp.Profiles)
	if n == 0 {
		return 0
	}
	for i, p := range sp.Profiles {
		if p.Name == profile {
			return (float64(i) + float64(step)/bench.Checkpoints) / float64(n)
		}
	}
	return 0
}
