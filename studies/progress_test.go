package studies

import (
	"context"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
)

func TestBenchProgress(t *testing.T) {
	sp := &space.Space{Profiles: []bench.Profile{{Name: "a"}, {Name: "b"}}}
	for _, tc := range []struct {
		profile string
		step    int
		want    float64
	}{
		{"a", 1, 0.05},
		{"a", 5, 0.25},
		{"b", 5, 0.75},
		{"b", bench.Checkpoints, 1},
		{"unknown", 3, 0},
	} {
		if got := benchProgress(sp, tc.profile, tc.step); got != tc.want {
			t.Errorf("benchProgress(%s, %d) = %v, want %v", tc.profile, tc.step, got, tc.want)
		}
	}
	if got := benchProgress(&space.Space{}, "a", 1); got != 0 {
		t.Errorf("no profiles: %v", got)
	}
}

// progressRunner reports every checkpoint of its one profile, as the
// runners do, then completes.
type progressRunner struct{ fakeRunner }

func (r *progressRunner) Run(ctx context.Context, t objective.Trial) (objective.Result, error) {
	for _, cp := range bench.CheckpointSteps(10) {
		if v := t.Judge(objective.Checkpoint{Profile: t.Profiles[0].Name, Step: cp.Step, Metrics: map[string]float64{"total_tps": 1}}); v.Stop {
			return objective.Result{}, objective.ErrPruned
		}
	}
	return r.fakeRunner.Run(ctx, t)
}

func TestEventsSayHowFarTheBenchmarkHasCome(t *testing.T) {
	sp := studySpace(t, 2, "")
	st, dir := openStore(t)
	var got []float64
	err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: &progressRunner{}, Dir: dir,
		OnEvent: func(e Event) {
			if e.Kind == TrialPhase && e.Progress > 0 && e.Trial.Number == 1 {
				got = append(got, e.Progress)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != bench.Checkpoints-1 || got[0] != 0.1 || got[len(got)-1] != 0.9 {
		t.Errorf("progress of trial 1: %v, want 0.1 … 0.9", got)
	}
}
