package studies

import (
	"context"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"github.com/servetune/servetune/studies/store"
)

func virtualStudy(t *testing.T, workers int) ([]store.Trial, time.Duration) {
	t.Helper()
	sp := studySpace(t, 16, "")
	st, dir := openStore(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	err := Run(context.Background(), RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(),
		Workers: workers, WorkerID: "v", Virtual: true, Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var end time.Time
	for _, tr := range trials {
		if tr.End.After(end) {
			end = tr.End
		}
	}
	return trials, end.Sub(t0)
}

// On a virtual clock N workers finish sooner in the trials' own time,
// reproducibly, with n_trials exact.
func TestVirtualClockMeasuresParallelWallClock(t *testing.T) {
	trials, wall4 := virtualStudy(t, 4)
	if got := store.CountDone(trials); got != 16 {
		t.Errorf("%d trials done, want 16", got)
	}
	var sequential time.Duration
	for _, tr := range trials {
		sequential += tr.End.Sub(tr.Start)
		if !tr.Start.Before(tr.End) && !tr.BrokeRule() {
			t.Errorf("trial %d ran from %s to %s on the virtual clock", tr.Number, tr.Start, tr.End)
		}
	}
	again, wallAgain := virtualStudy(t, 4)
	if wallAgain != wall4 || len(again) != len(trials) {
		t.Errorf("a second virtual run took %s over %d trials, the first %s over %d: want the same", wallAgain, len(again), wall4, len(trials))
	}
	if wall4 <= 0 || wall4 > sequential/2 {
		t.Errorf("4 workers took %s of virtual time for %s of trials: want under half", wall4, sequential)
	}
}
