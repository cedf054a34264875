package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// routedFixture is a real runner's study that owns H100 and simulates
// H200 and A100-80GB: a measured baseline and trial on H100, simulated
// trials on the others with the simulator's intervals, the best of them
// on H200.
func routedFixture(t *testing.T) (*space.Space, []store.Trial) {
	t.Helper()
	src := `
[study]
name = "owned"
[target]
runner = "process"
model = "Qwen/Qwen3-8B"
gpu = "H100"
gpus = 1
engine = "vllm"
simulated_gpus = ["H200", "A100-80GB"]
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
[[constraints]]
expr = "p99_ttft_ms <= 2000"
[params.gpu]
values = ["H100", "H200", "A100-80GB"]
[params.max_running]
values = [32, 64]
`
	sp, err := space.Parse(context.Background(), "owned.toml", src, space.Options{Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true }})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	m := func(tpot, ttft float64) map[string]map[string]float64 {
		return map[string]map[string]float64{"balanced": {"mean_tpot_ms": tpot, "p99_ttft_ms": ttft}}
	}
	ivs := func(tpot, ttft float64) map[string]map[string]store.Interval {
		return map[string]map[string]store.Interval{"balanced": {
			"mean_tpot_ms": {Lo80: tpot * 0.9, Hi80: tpot * 1.1, Lo95: tpot * 0.8, Hi95: tpot * 1.2},
			"p99_ttft_ms":  {Lo80: ttft * 0.7, Hi80: ttft * 1.4, Lo95: ttft * 0.5, Hi95: ttft * 2},
		}}
	}
	cfg := func(gpu string, mr int64) space.Config {
		return space.Config{"engine": "vllm", "gpu": gpu, "max_running": mr}
	}
	trials := []store.Trial{
		{Number: 1, State: store.Complete, Origin: "baseline", Runner: "process", Config: cfg("H100", 32), Metrics: m(30, 900), GPUSeconds: 600, Start: at},
		{Number: 2, State: store.Complete, Origin: "prior", Runner: "process", Config: cfg("H100", 64), Metrics: m(25, 1200), GPUSeconds: 600, Start: at},
		{Number: 3, State: store.Complete, Origin: "prior", Runner: "sim", Config: cfg("H200", 64), Metrics: m(18, 1000), Intervals: ivs(18, 1000), Start: at},
		{Number: 4, State: store.Complete, Origin: "sampler", Runner: "sim", Config: cfg("A100-80GB", 32), Metrics: m(40, 1500), Intervals: ivs(40, 1500), Start: at},
		{Number: 5, State: store.Complete, Origin: "sampler", Runner: "sim", Config: cfg("A100-80GB", 64), Metrics: m(35, 2600), Intervals: ivs(35, 2600), Start: at},
	}
	return sp, trials
}

// A study that measures one GPU type and simulates the others reports
// them apart in every renderer: each row's source, a simulated value's
// interval, the best config of each type, and the recommendation on a
// simulated type says to measure before buying.
func TestRoutedReportSeparatesMeasuredFromSimulated(t *testing.T) {
	sp, trials := routedFixture(t)
	r := BuildReport(sp, trials, nil)
	if len(r.Winners) != 1 || r.Winners[0].Trial != 3 || r.Winners[0].Source != SourceSimulated || len(r.Winners[0].Intervals) != 1 {
		t.Fatalf("winners %+v, want simulated trial 3 with its interval", r.Winners)
	}
	if r.Baseline == nil || r.Baseline.Source != SourceMeasured || r.Baseline.Intervals != nil {
		t.Errorf("baseline %+v, want measured without an interval", r.Baseline)
	}
	want := map[string]int{"H100": 2, "H200": 3, "A100-80GB": 4}
	for _, p := range r.GPUTypes {
		if p.Best == nil || p.Best.Trial != want[p.GPU] || (p.Source == SourceSimulated) != (p.GPU != "H100") {
			t.Errorf("gpu type %s (%s): best %+v, want trial %d", p.GPU, p.Source, p.Best, want[p.GPU])
		}
	}
	if len(r.Recommendations) != 1 || r.Recommendations[0].Source != SourceSimulated || r.Recommendations[0].GPU != "H200" {
		t.Fatalf("recommendations %+v", r.Recommendations)
	}
	note := r.BuyNote(r.Recommendations[0])
	if !strings.Contains(note, "Simulated on H200: measure before buying") || !strings.Contains(note, "The best measured config is trial 2 on H100.") {
		t.Errorf("buy note %q", note)
	}
	js := goldenReport(t, "routed_report", r)
	var listed bytes.Buffer
	if err := TrialsText(&listed, sp, trials); err != nil {
		t.Fatal(err)
	}
	golden(t, "routed_trials.txt", listed.Bytes())
	var back map[string]any
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if _, ok := back["gpu_types"]; !ok {
		t.Error("the JSON has no gpu_types")
	}
}

// A study that simulates nothing beside a real runner reports as before:
// no source, no interval, no per-type picks.
func TestUnroutedReportNamesNoSource(t *testing.T) {
	sp, trials := reportFixture(t)
	r := BuildReport(sp, trials, nil)
	for _, w := range append(r.Winners, *r.Baseline) {
		if w.Source != "" || w.Intervals != nil {
			t.Errorf("row %d: source %q intervals %v", w.Trial, w.Source, w.Intervals)
		}
	}
	if r.GPUTypes != nil || r.SimulatedGPUs != nil {
		t.Errorf("gpu types %+v simulated %v", r.GPUTypes, r.SimulatedGPUs)
	}
}

// newTrial records the runner a trial's GPU type routes it to.
func TestNewTrialRecordsTheRunnerItsGPUTypeCallsFor(t *testing.T) {
	sp, _ := routedFixture(t)
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	l := &loop{RunOptions: RunOptions{Space: sp, Repeat: 1, Now: func() time.Time { return at }}}
	l.ix = newTrialIndex(sp, nil, nil)
	for gpu, want := range map[string]string{"H100": "process", "H200": "sim", "A100-80GB": "sim"} {
		tr := l.newTrial(next{cfg: space.Config{"engine": "vllm", "gpu": gpu, "max_running": int64(32)}, origin: "sampler"})
		if tr.Runner != want {
			t.Errorf("a trial on %s records runner %q, want %q", gpu, tr.Runner, want)
		}
	}
}
