package studies

import (
	"context"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// priorFunc is a Prior from a function.
type priorFunc func(space.Config) ([]float64, bool)

func (f priorFunc) Predict(_ context.Context, c space.Config) ([]float64, bool) { return f(c) }

// A study records why each trial ran — the baseline, the space's
// enqueued configs, --warm-start's, the prior's picks and the sampler's —
// what measured it, and what the prior predicted for each proposal; a
// read gives them back, and the prior's view of the space is stored.
func TestTrialsRecordOriginRunnerAndPrediction(t *testing.T) {
	sp := studySpace(t, 12, "")
	st, dir := openStore(t)
	predict := func(c space.Config) ([]float64, bool) {
		mr, _ := c.Int("max_running")
		mf, _ := c.Float("mem_fraction")
		return []float64{float64(mr) * 9}, mf < 0.95
	}
	o := RunOptions{Space: sp, Store: st, Runner: &fakeRunner{}, Dir: dir, Log: zerolog.Nop(),
		Enqueue:   []space.Config{{"max_running": int64(64), "mem_fraction": 0.8, "dp": int64(1)}},
		WarmStart: []space.Config{{"max_running": int64(128), "mem_fraction": 0.8, "dp": int64(2)}},
		Search:    search.Options{Prior: priorFunc(predict)}}
	if err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	trials, err := st.Trials(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"baseline", "enqueued", "warm-start", "prior"}
	origins := map[string]int{}
	for i, tr := range trials {
		origins[tr.Origin]++
		if i < len(want) && tr.Origin != want[i] {
			t.Errorf("trial %d origin %q, want %q", tr.Number, tr.Origin, want[i])
		}
		if tr.Runner != "sim" {
			t.Errorf("trial %d runner %q, want sim (the target's default)", tr.Number, tr.Runner)
		}
		proposed := tr.Origin == "prior" || tr.Origin == "sampler"
		if proposed != (tr.Prediction != nil) {
			t.Errorf("trial %d (%s): prediction %+v", tr.Number, tr.Origin, tr.Prediction)
		}
		if tr.Prediction != nil {
			v, ok := predict(tr.Config)
			if tr.Prediction.Feasible != ok || (ok && tr.Prediction.Values[0] != v[0]) {
				t.Errorf("trial %d: stored prediction %+v, prior said %v %v", tr.Number, tr.Prediction, v, ok)
			}
		}
	}
	if origins["prior"] == 0 || origins["sampler"] == 0 {
		t.Errorf("origins %v: want the prior's and the sampler's proposals told apart", origins)
	}
	regions, err := st.Outlook(context.Background())
	if err != nil || len(regions) == 0 {
		t.Fatalf("outlook %v, %v: want the prior's view stored", regions, err)
	}
}
