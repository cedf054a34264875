package space

import (
	"context"
	"testing"

	"github.com/servetune/servetune/bench"
)

// The trace example loads from the repository root, as its comment says
// to run it, and its profile replays the example Mooncake trace.
func TestTraceExampleSpaceIsValid(t *testing.T) {
	t.Chdir("..")
	o := testOptions()
	o.CheckTarget = nil // the test's fake cards know other models
	sp, err := Load(context.Background(), "examples/trace.toml", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Profiles) != 1 || sp.Profiles[0].DatasetName() != bench.DatasetTrace {
		t.Fatalf("profiles %+v, want the one trace profile", sp.Profiles)
	}
	pl, err := sp.Profiles[0].Plan()
	if err != nil || len(pl.Requests) != 48 {
		t.Fatalf("plan: %d requests, %v", len(pl.Requests), err)
	}
}
