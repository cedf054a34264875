package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// intervalPrior predicts like priorFunc and states an interval around
// each prediction (search.IntervalPrior); a NaN bound for a config with
// max_running 64 stands for one the store must drop, never keep.
type intervalPrior struct{ priorFunc }

func (p intervalPrior) Intervals(c space.Config, v []float64) []*search.Interval {
	mr, _ := c.Int("max_running")
	if mr == 64 {
		return []*search.Interval{{Lo80: math.NaN(), Hi80: 1, Lo95: 0, Hi95: 2}}
	}
	return []*search.Interval{{Lo80: v[0] * 0.8, Hi80: v[0] * 1.25, Lo95: v[0] * 0.7, Hi95: v[0] * 1.4}}
}

// A predicted trial's stored prediction carries the prior's interval
// through the store, and show prints it: the 80% interval beside the
// prediction in text, every bound in --json; an interval the prior
// could not state finitely is absent.
func TestPredictionStoresAndShowsInterval(t *testing.T) {
	sp := studySpace(t, 12, "")
	st, dir := openStore(t)
	predict := func(c space.Config) ([]float64, bool) {
		mr, _ := c.Int("max_running")
		return []float64{float64(mr) * 9}, true
	}
	o := RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(),
		Search: search.Options{Prior: intervalPrior{predict}}}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var shown *store.Trial
	for i, tr := range trials {
		if tr.Prediction == nil || len(tr.Prediction.Values) == 0 {
			continue
		}
		mr, _ := tr.Config.Int("max_running")
		ivs := tr.Prediction.Intervals
		if mr == 64 {
			if ivs != nil {
				t.Errorf("trial %d: stored %v, want no interval (a NaN bound)", tr.Number, ivs)
			}
			continue
		}
		v := tr.Prediction.Values[0]
		want := store.Interval{Lo80: v * 0.8, Hi80: v * 1.25, Lo95: v * 0.7, Hi95: v * 1.4}
		if len(ivs) != 1 || ivs[0] == nil || *ivs[0] != want {
			t.Fatalf("trial %d: stored intervals %v, want [%+v]", tr.Number, ivs, want)
		}
		shown = &trials[i]
	}
	if shown == nil {
		t.Fatal("no trial stored a predicted interval")
	}
	checkShownInterval(t, sp, *shown)
}

// checkShownInterval checks show's text and --json renderings of tr.
func checkShownInterval(t *testing.T, sp *space.Space, tr store.Trial) {
	t.Helper()
	iv := tr.Prediction.Intervals[0]
	var text, js bytes.Buffer
	if err := TrialsText(&text, sp, []store.Trial{tr}); err != nil {
		t.Fatal(err)
	}
	want := fmtNum(tr.Prediction.Values[0]) + " (80%: " + fmtNum(iv.Lo80) + "–" + fmtNum(iv.Hi80) + ")"
	if !strings.Contains(text.String(), want) {
		t.Errorf("show prints\n%s\nwant %q beside the prediction", text.String(), want)
	}
	if err := TrialsJSON(&js, []store.Trial{tr}); err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Prediction struct {
			Intervals []map[string]float64 `json:"intervals"`
		} `json:"prediction"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	wantJS := map[string]float64{"lo80": iv.Lo80, "hi80": iv.Hi80, "lo95": iv.Lo95, "hi95": iv.Hi95}
	if len(got) != 1 || len(got[0].Prediction.Intervals) != 1 || !mapsEqual(got[0].Prediction.Intervals[0], wantJS) {
		t.Errorf("show --json prints %s, want the interval %v", js.String(), wantJS)
	}
}

func mapsEqual(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// A prediction without an interval prints as before: no "intervals" key
// in --json, no "80%" in text.
func TestPredictionWithoutIntervalShowsNone(t *testing.T) {
	sp := studySpace(t, 12, "")
	tr := store.Trial{Number: 1, State: store.Complete, Origin: "prior", Config: space.Config{"max_running": int64(64)},
		Prediction: &store.Prediction{Values: []float64{576}, Feasible: true}}
	var text, js bytes.Buffer
	if err := TrialsText(&text, sp, []store.Trial{tr}); err != nil {
		t.Fatal(err)
	}
	if err := TrialsJSON(&js, []store.Trial{tr}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "80%") || strings.Contains(js.String(), "intervals") {
		t.Errorf("an interval shown where none was stated:\n%s\n%s", text.String(), js.String())
	}
}

// The store keeps a stated interval as it is, an entry per objective
// (null where none), drops one with a non-finite bound, and keeps none at
// all when none is left.
func TestStoredIntervals(t *testing.T) {
	ok := &search.Interval{Lo80: 2, Hi80: 3, Lo95: 1, Hi95: 4}
	nan := &search.Interval{Lo80: math.NaN(), Hi80: 3, Lo95: 1, Hi95: 4}
	inf := &search.Interval{Lo80: 2, Hi80: 3, Lo95: 1, Hi95: math.Inf(1)}
	want := &store.Interval{Lo80: 2, Hi80: 3, Lo95: 1, Hi95: 4}
	for _, c := range []struct {
		name string
		in   []*search.Interval
		want []*store.Interval
	}{
		{"none", nil, nil},
		{"all absent", []*search.Interval{nil, nil}, nil},
		{"non-finite only", []*search.Interval{nan, inf}, nil},
		{"one stated", []*search.Interval{nil, ok}, []*store.Interval{nil, want}},
		{"one dropped", []*search.Interval{ok, nan}, []*store.Interval{want, nil}},
	} {
		got := storedIntervals(c.in)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
			continue
		}
		for i := range got {
			if (got[i] == nil) != (c.want[i] == nil) || (got[i] != nil && *got[i] != *c.want[i]) {
				t.Errorf("%s: entry %d %v, want %v", c.name, i, got[i], c.want[i])
			}
		}
	}
}
