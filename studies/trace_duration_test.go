package studies

import (
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
)

// A trace profile's expected duration, which sizes the trial timeout, is
// its window over its speedup, or its last arrival when the window runs
// to the trace's end; never the division by a zero request rate.
func TestTraceExpectedDuration(t *testing.T) {
	p := bench.Profile{Dataset: bench.DatasetTrace, DatasetPath: "../examples/traces/generic.jsonl", Seed: 1}
	pl, err := p.Plan()
	if err != nil {
		t.Fatal(err)
	}
	last := pl.Requests[len(pl.Requests)-1].Arrival
	if got := expectedDuration(p); got != last || got < time.Second {
		t.Errorf("whole trace: %v, want its last arrival %v", got, last)
	}
	p.Trace = &bench.Trace{Duration: time.Hour, Speedup: 4}
	if got := expectedDuration(p); got != 15*time.Minute {
		t.Errorf("an hour at 4x: %v, want 15m", got)
	}
}
