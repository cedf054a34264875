package view

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

func TestRoundSensibly(t *testing.T) {
	for in, want := range map[float64]float64{
		19534.2857: 19534, 132.4: 132, 85.58259: 85.6, 4.2213: 4.22, 0.123456: 0.123, 0.000123456: 0.000123, 0: 0, -66.14: -66.1,
	} {
		if got := roundSensibly(in); got != want {
			t.Errorf("roundSensibly(%v) = %v, want %v", in, got, want)
		}
	}
	if !math.IsNaN(roundSensibly(math.NaN())) {
		t.Error("NaN must stay NaN (callers leave undefined values out)")
	}
}

func progressSpace(t *testing.T) *space.Space {
	t.Helper()
	sp, err := space.Load(context.Background(), "../../../examples/quickstart.toml", studies.SpaceOptions(nil))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestFinishedLine(t *testing.T) {
	sp := progressSpace(t)
	m := func(tps, tpot float64) map[string]map[string]float64 {
		return map[string]map[string]float64{"balanced": {"total_tps": tps, "mean_tpot_ms": tpot}}
	}
	base := []float64{5000, 80}
	for _, tc := range []struct {
		t    store.Trial
		want string
	}{
		{store.Trial{Number: 1, State: store.Complete, Origin: "baseline", Metrics: m(5000, 80)}, "trial 1 complete  total_tps 5000  mean_tpot_ms 80"},
		{store.Trial{Number: 7, State: store.Complete, Metrics: m(7613.2, 66.14)}, "trial 7 complete  total_tps 7613 (+52.3%)  mean_tpot_ms 66.1 (-17.3%)"},
		{store.Trial{Number: 8, State: store.Infeasible, Failure: &engines.Failure{Class: engines.OOM, Message: "CUDA out of memory"}}, "trial 8 infeasible: oom: CUDA out of memory"},
		{store.Trial{Number: 9, State: store.Pruned, Reason: "worse at 30%"}, "trial 9 pruned: worse at 30%"},
		{store.Trial{Number: 10, State: store.Infeasible, Reason: "breaks rule tp <= gpus"}, "trial 10 skipped: breaks rule tp <= gpus"},
	} {
		if got := finishedLine(sp, tc.t, base, nil); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func TestLiveBlock(t *testing.T) {
	sp := progressSpace(t)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	base := store.Trial{Number: 1, State: store.Complete, Origin: "baseline", GPUSeconds: 3600,
		Metrics: map[string]map[string]float64{"balanced": {"total_tps": 5040.4, "mean_tpot_ms": 85.58}}}
	s := newRunStats(sp, []store.Trial{base}, 10*time.Hour, t0)
	s.observe(studies.Event{Kind: studies.TrialStarted, Trial: store.Trial{Number: 2}, Done: 1, Total: 60}, t0)
	s.observe(studies.Event{Kind: studies.TrialFinished, Trial: store.Trial{Number: 2, State: store.Pruned, GPUSeconds: 1800}, Done: 2, Total: 60}, t0.Add(time.Minute))
	run := store.Trial{Number: 3, Config: space.Config{"engine": "sglang", "tp": int64(8)}}
	s.observe(studies.Event{Kind: studies.TrialStarted, Trial: run, Done: 2, Total: 60}, t0.Add(time.Minute))
	s.observe(studies.Event{Kind: studies.TrialPhase, Trial: run, Phase: objective.Benchmarking, Progress: 0.4, Done: 2, Total: 60}, t0.Add(80*time.Second))
	got := strings.Join(s.block(t0.Add(2*time.Minute)), "\n")
	want := "servetune quickstart · trial 3 of 60 · 1.5 / 10 simulated GPU-hours · elapsed 2m0s · ETA 57m0s\n" +
		"  best: total_tps 5040 (trial 1) · mean_tpot_ms 85.6 (trial 1)\n" +
		"  trial 3: benchmarking 40% (1m0s) · engine=sglang tp=8"
	if got != want {
		t.Errorf("block:\n%s\nwant:\n%s", got, want)
	}
}

// With several workers the block says how many trials run and shows each.
func TestLiveBlockWithParallelTrials(t *testing.T) {
	sp := progressSpace(t)
	t0 := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	s := newRunStats(sp, nil, 0, t0)
	for _, n := range []int{4, 3} {
		s.observe(studies.Event{Kind: studies.TrialStarted, Trial: store.Trial{Number: n, Config: space.Config{"max_running": int64(n * 64)}}, Done: 2, Total: 60}, t0)
	}
	s.observe(studies.Event{Kind: studies.TrialPhase, Trial: store.Trial{Number: 3}, Phase: objective.Benchmarking, Progress: 0.5, Done: 2, Total: 60}, t0)
	lines := s.block(t0.Add(time.Minute))
	if !strings.Contains(lines[0], "· 2 running ·") || len(lines) != 3 ||
		!strings.HasPrefix(lines[1], "  trial 3: benchmarking 50%") || !strings.HasPrefix(lines[2], "  trial 4: launching") {
		t.Fatalf("block:\n%s", strings.Join(lines, "\n"))
	}
	s.observe(studies.Event{Kind: studies.TrialFinished, Trial: store.Trial{Number: 3, State: store.Pruned}, Done: 3, Total: 60}, t0.Add(time.Minute))
	if lines := s.block(t0.Add(time.Minute)); strings.Contains(lines[0], "running") || len(lines) != 2 {
		t.Errorf("after one finished:\n%s", strings.Join(lines, "\n"))
	}
}
