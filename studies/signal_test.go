package studies

import (
	"context"
	"errors"
	"testing"

	"github.com/servetune/servetune/studies/store"
)

// A signal between two trials begins no new trial, so no row is left
// running for the next run to recover.
func TestSignalBetweenTrialsLeavesNoRunningRow(t *testing.T) {
	sp := studySpace(t, 20, "")
	st, dir := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := Run(ctx, RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir,
		OnEvent: func(e Event) {
			if e.Kind == TrialFinished && e.Done == 2 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run = %v, want context.Canceled", err)
	}
	trials, _ := st.Trials(context.Background())
	for _, tr := range trials {
		if tr.State == store.Running || tr.State == store.Interrupted {
			t.Errorf("trial %d is %s after a signal between trials", tr.Number, tr.State)
		}
	}
	if store.CountDone(trials) != 2 {
		t.Errorf("%d trials done, want 2", store.CountDone(trials))
	}
}
