package optunadb

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// Optuna 3.1 itself opens what Writer wrote: every trial with its params,
// values and state, the Pareto front servetune computes, and the Optuna
// CLI's own listing.
func TestOptunaLoadsTheExportedStudy(t *testing.T) {
	py := systemPython(t)
	sp, trials := fixtureSpaceParsed(t), fixtureTrials()
	path := filepath.Join(t.TempDir(), "optuna.db")
	url := "sqlite:///" + path
	writeAll(t, url, sp, trials)
	v := loadWithOptuna(t, py, url, "interop")

	if want := []string{"MAXIMIZE", "MINIMIZE"}; !slices.Equal(v.Directions, want) {
		t.Errorf("directions %v, want %v", v.Directions, want)
	}
	if len(v.Trials) != len(trials) {
		t.Fatalf("Optuna sees %d trials, want %d", len(v.Trials), len(trials))
	}
	wantState := map[store.State]string{store.Complete: "COMPLETE", store.Pruned: "PRUNED", store.Infeasible: "FAIL",
		store.Failed: "FAIL", store.Interrupted: "FAIL", store.Running: "RUNNING"}
	for i, got := range v.Trials {
		tr := trials[i]
		if got.Number != tr.Number || got.State != wantState[tr.State] {
			t.Errorf("trial %d: Optuna has number %d state %s, want %s", tr.Number, got.Number, got.State, wantState[tr.State])
		}
		if got.UserAttrs["servetune_state"] != string(tr.State) || got.UserAttrs["command"] == nil {
			t.Errorf("trial %d: user attrs %v lack its servetune state or command", tr.Number, got.UserAttrs)
		}
		if got.Complete == (tr.State == store.Running) {
			t.Errorf("trial %d (%s): datetime_complete set = %v", tr.Number, tr.State, got.Complete)
		}
		checkParams(t, tr, got.Params)
		checkValues(t, sp, tr, got.Values)
		if want := tr.Start.Local().Format("2006-01-02 15:04:05"); got.Start != want {
			t.Errorf("trial %d started %s to Optuna, want %s (local time, as Optuna writes it)", tr.Number, got.Start, want)
		}
	}
	if got := v.Trials[1].UserAttrs["chat/total_tps"]; got != 4500.0 {
		t.Errorf("trial 2's chat/total_tps attribute is %v, want 4500 (every profile's metrics)", got)
	}
	if got := v.Trials[4].Intermediate; got["0"] != 1500 || got["1"] != 1800 {
		t.Errorf("pruned trial 5's intermediate values %v, want its checkpoints 1500, 1800", got)
	}
	if c, ok := v.Trials[2].SystemAttrs["constraints"].([]any); !ok || c[0].(float64) <= 0 {
		t.Errorf("trial 3 breaks tpot <= 60: constraints %v, want a positive violation", v.Trials[2].SystemAttrs)
	}
	if d := v.Trials[1].Distributions; d["max_running"] != "IntDistribution" || d["mem_fraction"] != "FloatDistribution" || d["chunked_prefill"] != "CategoricalDistribution" {
		t.Errorf("distributions %v", d)
	}
	if want := front(sp, trials); !slices.Equal(v.Best, want) {
		t.Errorf("Optuna's best_trials %v, servetune's Pareto front %v", v.Best, want)
	}
	rows := optunaCLI(t, py, "trials", "--study-name", "interop", "--storage", url, "-f", "json")
	if len(rows) != len(trials) {
		t.Errorf("`optuna trials` lists %d trials, want %d", len(rows), len(trials))
	}
	best := optunaCLI(t, py, "best-trials", "--study-name", "interop", "--storage", url, "-f", "json")
	if len(best) != len(v.Best) {
		t.Errorf("`optuna best-trials` lists %d trials, want %d", len(best), len(v.Best))
	}
}

func writeAll(t *testing.T, url string, sp *space.Space, trials []store.Trial) {
	t.Helper()
	target, err := ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	w, err := Open(context.Background(), target, sp)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(context.Background(), trials, nil); err != nil {
		t.Fatal(err)
	}
}

func checkParams(t *testing.T, tr store.Trial, got map[string]any) {
	t.Helper()
	if len(got) != len(tr.Config) {
		t.Errorf("trial %d: Optuna params %v, config %v", tr.Number, got, tr.Config)
	}
	for k, want := range tr.Config {
		g := got[k]
		if f, ok := g.(float64); ok {
			if w, isInt := want.(int64); isInt {
				want = float64(w)
			}
			g = f
		}
		if g != want {
			t.Errorf("trial %d: param %s = %v (%T), want %v (%T)", tr.Number, k, got[k], got[k], want, want)
		}
	}
}

func checkValues(t *testing.T, sp *space.Space, tr store.Trial, got []float64) {
	t.Helper()
	if tr.State != store.Complete {
		if got != nil {
			t.Errorf("trial %d (%s) has values %v; only complete trials do", tr.Number, tr.State, got)
		}
		return
	}
	want := studies.Values(sp, tr)
	if !slices.Equal(got, want) {
		t.Errorf("trial %d: values %v, want %v", tr.Number, got, want)
	}
}

// front is servetune's Pareto front of the complete trials, constraints
// aside: Optuna 3.1's best_trials does not read them.
func front(s *space.Space, trials []store.Trial) []int {
	var pts []search.Point
	var nums []int
	for _, tr := range trials {
		if tr.State == store.Complete {
			pts = append(pts, search.Point{Values: studies.Values(s, tr)})
			nums = append(nums, tr.Number)
		}
	}
	var out []int
	for _, i := range search.Front(pts, s.Objectives) {
		out = append(out, nums[i])
	}
	slices.Sort(out)
	return out
}
