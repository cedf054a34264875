package studies

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servetune/servetune/objective/simprior"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
	"github.com/servetune/servetune/studies/studydir"
)

func TestNeighbourRow(t *testing.T) {
	maxTPS := []space.Objective{{Metric: "total_tps", Direction: space.Maximize}}
	two := append(slices.Clone(maxTPS), space.Objective{Metric: "mean_tpot_ms", Direction: space.Minimize})
	nz := noise{CV: 0.02, DF: 40} // a well-measured 2%: a 95% half-width of about 4% per single measurement
	inc := measuredConfig{N: 1, Values: []float64{1000, 50}}
	n := search.Neighbour{Knob: "max_running", Value: int64(256)}
	for _, tc := range []struct {
		name         string
		objs         []space.Objective
		m            *measuredConfig
		ref, p       *store.Prediction
		status, vers string
	}{
		{"measured better beyond the noise", maxTPS, &measuredConfig{Trial: 7, N: 1, Values: []float64{1200}}, nil, nil, NeighbourMeasured, VersusBetter},
		{"measured worse beyond the noise", maxTPS, &measuredConfig{Trial: 7, N: 1, Values: []float64{800}}, nil, nil, NeighbourMeasured, VersusWorse},
		{"measured within the noise", maxTPS, &measuredConfig{Trial: 7, N: 1, Values: []float64{1030}}, nil, nil, NeighbourMeasured, VersusWithinNoise},
		{"a better mean of 3 against one: still better", maxTPS, &measuredConfig{Trial: 7, N: 3, Values: []float64{1070}}, nil, nil, NeighbourMeasured, VersusBetter},
		{"better but breaking a constraint", maxTPS, &measuredConfig{Trial: 7, N: 1, Values: []float64{1500}, Violates: true}, nil, nil, NeighbourMeasured, VersusBreaks},
		{"tried, never completed", maxTPS, &measuredConfig{Trial: 7, Tried: 2, State: store.Infeasible}, nil, nil, NeighbourMeasured, VersusIncomplete},
		{"two objectives: better on one, worse on the other", two, &measuredConfig{Trial: 7, N: 1, Values: []float64{1200, 70}}, nil, nil, NeighbourMeasured, VersusTradeOff},
		{"two objectives: better on one, the same on the other", two, &measuredConfig{Trial: 7, N: 1, Values: []float64{1200, 50}}, nil, nil, NeighbourMeasured, VersusBetter},
		{"predicted worse than the incumbent's measurement", maxTPS, nil, nil, &store.Prediction{Values: []float64{700}, Feasible: true}, NeighbourPredicted, VersusWorse},
		{"predicted within the interval: not worse", maxTPS, nil, nil, &store.Prediction{Values: []float64{990}, Feasible: true}, NeighbourPredicted, VersusNotWorse},
		{"predicted better beyond the interval", maxTPS, nil, nil, &store.Prediction{Values: []float64{1300}, Feasible: true}, NeighbourPredicted, VersusBetter},
		{"two objectives, predicted: a trade-off is not worse", two, nil, nil, &store.Prediction{Values: []float64{600, 30}, Feasible: true}, NeighbourPredicted, VersusNotWorse},
		{"predicted not to start: worse", maxTPS, nil, nil, &store.Prediction{Values: []float64{5000}}, NeighbourPredicted, VersusWorse},
		// Against the incumbent's own prediction the simulator's bias
		// cancels: 1100 predicted is worse than the 1500 it predicted for
		// the incumbent, though above the 1000 measured.
		{"predicted worse than the incumbent's prediction", maxTPS, nil, &store.Prediction{Values: []float64{1500}, Feasible: true}, &store.Prediction{Values: []float64{1100}, Feasible: true}, NeighbourPredicted, VersusWorse},
		{"a measurement outranks a prediction", maxTPS, &measuredConfig{Trial: 7, N: 1, Values: []float64{1200}}, nil, &store.Prediction{Values: []float64{100}, Feasible: true}, NeighbourMeasured, VersusBetter},
		{"neither: not explored", maxTPS, nil, nil, nil, NeighbourUnexplored, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := neighbourRow(tc.objs, nz, inc, tc.ref, n, tc.m, tc.p)
			if got.Status != tc.status || got.Versus != tc.vers {
				t.Errorf("status %q versus %q, want %q %q", got.Status, got.Versus, tc.status, tc.vers)
			}
			if tc.status == NeighbourUnexplored && (got.Measurements != 0 || got.Trial != 0 || got.Values != nil) {
				t.Errorf("an unexplored neighbour carries measurements: %+v", got)
			}
		})
	}
}

func TestNeighbourhoodSummary(t *testing.T) {
	row := func(knob string, status, versus string) NeighbourRow {
		return NeighbourRow{Knob: knob, Value: int64(1), Status: status, Versus: versus, Trial: 3}
	}
	for _, tc := range []struct {
		name    string
		rows    []NeighbourRow
		summary string
		warns   []string // a word each warning must hold, in order
	}{
		{"all measured worse: nothing to warn of",
			[]NeighbourRow{row("a", NeighbourMeasured, VersusWorse), row("b", NeighbourMeasured, VersusWithinNoise)},
			"2 of 2 one-knob neighbours measured; 0 predicted worse; 0 unexplored", nil},
		{"a measured better neighbour is flagged",
			[]NeighbourRow{row("a", NeighbourMeasured, VersusBetter), row("b", NeighbourMeasured, VersusWorse)},
			"2 of 2 one-knob neighbours measured; 0 predicted worse; 0 unexplored", []string{"measured better"}},
		{"an unexplored neighbour is counted as unexplored, not measured, and flagged",
			[]NeighbourRow{row("a", NeighbourUnexplored, ""), row("b", NeighbourMeasured, VersusWorse), row("c", NeighbourPredicted, VersusWorse)},
			"1 of 3 one-knob neighbours measured; 1 predicted worse; 1 unexplored", []string{"neither measured nor predicted"}},
		{"predicted not worse is counted, not flagged",
			[]NeighbourRow{row("a", NeighbourPredicted, VersusNotWorse)},
			"0 of 1 one-knob neighbours measured; 0 predicted worse; 0 unexplored; 1 predicted not worse", nil},
		{"predicted better is flagged",
			[]NeighbourRow{row("a", NeighbourPredicted, VersusBetter), row("b", NeighbourMeasured, VersusWorse)},
			"1 of 2 one-knob neighbours measured; 0 predicted worse; 0 unexplored; 1 predicted not worse", []string{"predicted better"}},
		{"no neighbours", nil, "0 of 0 one-knob neighbours measured; 0 predicted worse; 0 unexplored", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sum, warns := neighbourhoodSummary(tc.rows)
			if sum != tc.summary {
				t.Errorf("summary %q, want %q", sum, tc.summary)
			}
			if len(warns) != len(tc.warns) {
				t.Fatalf("warnings %q, want ones holding %q", warns, tc.warns)
			}
			for i, w := range tc.warns {
				if !strings.Contains(warns[i], w) {
					t.Errorf("warning %q does not say %q", warns[i], w)
				}
			}
		})
	}
}

// The report's winner carries its neighbourhood: measured from the
// trials, predicted once the kept predictions are given, the rest not
// explored; and the JSON contract holds it.
func TestReportNeighbourhood(t *testing.T) {
	sp := studySpace(t, 10, "")
	cfg := func(maxRunning int64, mem float64, dp int64) space.Config {
		return space.Config{"engine": "vllm", "max_running": maxRunning, "mem_fraction": mem, "dp": dp}
	}
	tps := func(v float64) map[string]map[string]float64 {
		return map[string]map[string]float64{"p": {"total_tps": v}}
	}
	trials := []store.Trial{
		{Number: 1, Origin: "sampler", State: store.Complete, Config: cfg(128, 0.9, 2), Metrics: tps(1000)},
		{Number: 2, Origin: "sampler", State: store.Complete, Config: cfg(64, 0.9, 2), Metrics: tps(600)},
		{Number: 3, Origin: "sampler", State: store.Infeasible, Config: cfg(128, 0.8, 2)},
	}
	r := BuildReport(sp, trials, nil)
	if len(r.Winners) != 1 || r.Winners[0].Trial != 1 {
		t.Fatalf("winners %+v", r.Winners)
	}
	status := func(w Row) map[string]string {
		out := map[string]string{}
		for _, n := range w.Neighbourhood {
			out[search.KnobKey(n.Knob, n.Value)] = n.Status + "/" + n.Versus
		}
		return out
	}
	// max_running=256 breaks dp * max_running <= 256: no neighbour.
	want := map[string]string{
		"max_running=64":    "measured/worse",
		"mem_fraction=0.8":  "measured/did not complete",
		"mem_fraction=0.95": "not explored/",
		"dp=1":              "not explored/",
	}
	if got := status(r.Winners[0]); !maps.Equal(got, want) {
		t.Errorf("neighbourhood %v, want %v", got, want)
	}
	if s := r.Winners[0].NeighbourhoodSummary; s != "2 of 4 one-knob neighbours measured; 0 predicted worse; 2 unexplored" {
		t.Errorf("summary %q", s)
	}
	r.WithPredictions(sp, trials, map[string]store.Prediction{
		search.ConfigKey(sp, cfg(128, 0.95, 2)): {Values: []float64{400}, Feasible: true},
	})
	want["mem_fraction=0.95"] = "predicted/worse"
	if got := status(r.Winners[0]); !maps.Equal(got, want) {
		t.Errorf("with predictions: neighbourhood %v, want %v", got, want)
	}
	w := r.Winners[0]
	if w.NeighbourhoodSummary != "2 of 4 one-knob neighbours measured; 1 predicted worse; 1 unexplored" ||
		len(w.NeighbourhoodWarnings) != 1 || !strings.Contains(w.NeighbourhoodWarnings[0], "dp=1") {
		t.Errorf("summary %q, warnings %q", w.NeighbourhoodSummary, w.NeighbourhoodWarnings)
	}
	var b strings.Builder
	if err := r.JSON(&b); err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"neighbourhood": [`, `"status": "not explored"`, `"neighbourhood_summary": "2 of 4`, `"neighbourhood_warnings"`} {
		if !strings.Contains(b.String(), field) {
			t.Errorf("the JSON lacks %s", field)
		}
	}
}

// The report reads the prior's full predictions from the study's
// directory; a study without the file has none.
func TestKeptPredictions(t *testing.T) {
	sp := studySpace(t, 10, "")
	dir := studydir.Of(t.TempDir(), "unit")
	if err := os.MkdirAll(dir.Path(), 0o755); err != nil {
		t.Fatal(err)
	}
	if kept, err := KeptPredictions(sp, dir); err != nil || kept != nil {
		t.Fatalf("no file: %v, %v", kept, err)
	}
	c := space.Config{"max_running": int64(64), "mem_fraction": 0.9, "dp": int64(1)}
	lines := `{"key":"whatever build"}
{"kind":"screen","config":{"max_running":32,"mem_fraction":0.9,"dp":1},"values":[10],"feasible":true}
{"kind":"predict","config":{"max_running":64,"mem_fraction":0.9,"dp":1},"values":[700],"feasible":true}
`
	if err := os.WriteFile(filepath.Join(dir.Path(), simprior.File), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	kept, err := KeptPredictions(sp, dir)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := kept[search.ConfigKey(sp, c)]; len(kept) != 1 || !ok || !p.Feasible || p.Values[0] != 700 {
		t.Errorf("kept %v, want the one full prediction of %v", kept, c)
	}
}
