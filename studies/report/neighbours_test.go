package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// A neighbour the study never ran but its prior kept a prediction of is
// "predicted" in the model, and both renderers say so; the rest stay
// unexplored and are warned of.
func TestOneKnobAwayRendersWhatTheModelHolds(t *testing.T) {
	sp, trials := fixtureSpaceOf(t), synthTrials(40)
	meta := Meta{Version: "v0.0.0-test", Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	plain := Build(sp, trials, fixtureRender, meta)
	w := plain.Summary.Winners[0]
	at := -1
	for i, n := range w.Neighbourhood {
		if n.Status == studies.NeighbourUnexplored {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("the fixture's first winner has no unexplored neighbour: %+v", w.Neighbourhood)
	}
	n := w.Neighbourhood[at]
	// Predicted far better than the winner measured: a warning.
	better := make([]float64, len(w.Values))
	for i, v := range w.Values {
		better[i] = v * 2 // total_tps
		if sp.Objectives[i].Direction == space.Minimize {
			better[i] = v / 2
		}
	}
	meta.Kept = map[string]store.Prediction{search.ConfigKey(sp, n.Config): {Values: better, Feasible: true}}
	f := Build(sp, trials, fixtureRender, meta)
	got := f.Summary.Winners[0]
	if got.Neighbourhood[at].Status != studies.NeighbourPredicted || got.Neighbourhood[at].Versus != studies.VersusBetter {
		t.Errorf("kept prediction: neighbour %+v", got.Neighbourhood[at])
	}
	if !strings.Contains(got.NeighbourhoodSummary, "1 predicted not worse") {
		t.Errorf("summary %q", got.NeighbourhoodSummary)
	}
	var md, page bytes.Buffer
	if err := f.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.HTML(&page); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": page.String()} {
		for _, want := range []string{"One knob away", got.NeighbourhoodSummary, "predicted better than this config", "neither measured nor predicted"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}

// A measured neighbour better than the winner is a warning in both
// renderers, naming its trial.
func TestOneKnobAwayWarnsOfABetterMeasuredNeighbour(t *testing.T) {
	f := fixtureFull(t, 40)
	w := &f.Summary.Winners[0]
	w.Neighbourhood = []studies.NeighbourRow{{Knob: "max_running", Value: int64(512), Status: studies.NeighbourMeasured, Versus: studies.VersusBetter, Trial: 99, Measurements: 2, Values: []float64{20000, 40}}}
	w.NeighbourhoodSummary = "1 of 1 one-knob neighbours measured; 0 predicted worse; 0 unexplored"
	w.NeighbourhoodWarnings = []string{"measured better than this config beyond the noise, one knob away: max_running=512 (trial 99)"}
	var md, page bytes.Buffer
	if err := f.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.HTML(&page); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": page.String()} {
		for _, want := range []string{"max_running=512 (trial 99)", "trial 99, 2 runs: 20000 / 40.0 — better"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}
