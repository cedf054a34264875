package store

import (
	"context"
	"errors"
	"testing"
	"time"
)

// conformFinishAll: FinishLeasedAll writes several results in one
// transaction as FinishLeased writes each — a result whose lease is lost
// is refused alone, the others written — and a batch that fails writes
// none of its results, so that a crash after it (the next run recovering
// the study) finds its trials running, as in flight, and interrupts them
// while the batch committed before stays recorded.
func conformFinishAll(t *testing.T, b backend) {
	ctx := context.Background()
	st := b.open(t, Create)
	trs := make([]Trial, 5)
	for i := range trs {
		trs[i] = trialOf("sampler", "w/"+string(rune('0'+i)), int64(i+1))
		mustClaim(t, st, &trs[i], 10, 0)
	}
	for i := range trs {
		trs[i].State, trs[i].End = Complete, t0.Add(time.Minute)
		trs[i].Metrics = map[string]map[string]float64{"p": {"total_tps": float64(100 * (i + 1))}}
	}
	stolen := trs[2]
	stolen.Worker = "another/0" // its lease is not this worker's
	lost, err := st.FinishLeasedAll(ctx, []*Trial{&trs[0], &trs[1], &stolen})
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) != 3 || lost[0] != nil || lost[1] != nil || !errors.Is(lost[2], ErrLeaseLost) {
		t.Fatalf("lost %v, want only the third result refused (ErrLeaseLost)", lost)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.FinishLeasedAll(cancelled, []*Trial{&trs[2], &trs[3]}); err == nil {
		t.Fatal("a batch on a cancelled context succeeded")
	}
	// The next run after a crash here recovers the study.
	interrupted, err := st.RecoverInterrupted(ctx, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]State{}
	all, err := st.Trials(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range all {
		got[tr.Number] = tr.State
	}
	want := map[int]State{trs[0].Number: Complete, trs[1].Number: Complete, trs[2].Number: Interrupted, trs[3].Number: Interrupted, trs[4].Number: Interrupted}
	if len(interrupted) != 3 || len(got) != len(want) {
		t.Fatalf("recovered %d trials as interrupted, states %v; want %v", len(interrupted), got, want)
	}
	for n, s := range want {
		if got[n] != s {
			t.Errorf("trial %d is %s, want %s (states %v)", n, got[n], s, want)
		}
	}
	if all[0].Metrics["p"]["total_tps"] != 100 || all[1].Metrics["p"]["total_tps"] != 200 {
		t.Errorf("the batch's results read back as %v and %v", all[0].Metrics, all[1].Metrics)
	}
}
