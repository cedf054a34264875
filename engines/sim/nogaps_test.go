package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// A simulator without gaps returns the same records but for their
// inter-token gaps, and the same duration.
func TestNoGapsChangesOnlyTheGaps(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "tp": int64(8), "max_running": int64(32)}
	p := small(64)
	want, wantDur, err := New().Evaluate(context.Background(), cfg, glmTarget, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	gaps := 0
	for i := range want {
		gaps += len(want[i].ITL)
		want[i].ITL = nil
	}
	if gaps == 0 {
		t.Fatal("the full simulation has no gaps: the check tells nothing")
	}
	got, dur, err := (&Simulator{Cards: DefaultCards(), NoGaps: true}).Evaluate(context.Background(), cfg, glmTarget, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if dur != wantDur || !reflect.DeepEqual(got, want) {
		t.Errorf("without gaps: %v and records equal %v; with: %v", dur, reflect.DeepEqual(got, want), wantDur)
	}
	if m := bench.Summarize(got, dur, bench.SummaryOptions{NoITL: true, NoPeaks: true}).Values(); m["total_tps"] <= 0 {
		t.Errorf("summary without gaps: %v", m)
	}
}
