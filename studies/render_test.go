package studies

import (
	"bytes"
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("missing golden file (go test ./studies -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// reportFixture is a small two-objective study: a baseline, a front of
// two, a dominated trial, an SLO miss, an OOM and a rule violation.
func reportFixture(t *testing.T) (*space.Space, []store.Trial) {
	t.Helper()
	src := `
[study]
name = "fixture"
[target]
model = "zai-org/GLM-5.2-FP8"
gpu = "H200"
gpus = 8
engine = "sglang"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
[[constraints]]
expr = "p99_ttft_ms <= 2000"
[params.max_running]
values = [64, 128, 256, 512]
`
	sp, err := space.Parse(context.Background(), "fixture.toml", src, space.Options{Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true }})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	m := func(tps, tpot, ttft float64) map[string]map[string]float64 {
		return map[string]map[string]float64{"balanced": {"total_tps": tps, "mean_tpot_ms": tpot, "p99_ttft_ms": ttft}}
	}
	cfg := func(mr int64) space.Config { return space.Config{"engine": "sglang", "max_running": mr} }
	trials := []store.Trial{
		{Number: 1, State: store.Complete, Origin: "baseline", Config: space.Config{"engine": "sglang"}, Metrics: m(5000, 600, 1500), GPUSeconds: 3600, Start: at},
		{Number: 2, State: store.Complete, Origin: "prior", Config: cfg(256), Metrics: m(17500, 218, 1900), GPUSeconds: 7200, Start: at,
			Prediction: &store.Prediction{Values: []float64{16000, 230}, Feasible: true}},
		{Number: 3, State: store.Complete, Origin: "sampler", Config: cfg(64), Metrics: m(9000, 120, 800), GPUSeconds: 7200, Start: at},
		{Number: 4, State: store.Complete, Origin: "sampler", Config: cfg(128), Metrics: m(8000, 300, 900), GPUSeconds: 7200, Start: at},
		{Number: 5, State: store.Complete, Origin: "sampler", Config: cfg(512), Metrics: m(20000, 100, 5000), GPUSeconds: 7200, Start: at},
		{Number: 6, State: store.Infeasible, Origin: "sampler", Config: space.Config{"engine": "sglang", "max_running": int64(512), "mem_fraction": 0.95}, GPUSeconds: 900, Start: at,
			Prediction: &store.Prediction{Feasible: false},
			Failure:    &engines.Failure{Class: engines.OOM, Message: "out of memory at startup", Lines: []string{"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."}}},
		{Number: 7, State: store.Infeasible, Origin: "sampler", Config: cfg(64), Start: at, Reason: "breaks rule tp % dp == 0"},
	}
	return sp, trials
}

func fakeRender(c space.Config) (string, error) {
	return "python3 -m sglang.launch_server --model-path zai-org/GLM-5.2-FP8 --max-running-requests=" + c.String("max_running"), nil
}

func TestReportRenderersGolden(t *testing.T) {
	sp, trials := reportFixture(t)
	r := BuildReport(sp, trials, fakeRender)
	if len(r.Winners) != 2 || r.Winners[0].Trial != 2 || r.Winners[1].Trial != 3 {
		t.Fatalf("front = %+v, want trials 2 and 3 (5 misses the SLO, 4 is dominated)", r.Winners)
	}
	goldenReport(t, "report", r)
}

// goldenReport holds r's text, Markdown and JSON renderings to the
// golden files base.txt, base.md and base.json, and returns the JSON.
func goldenReport(t *testing.T, base string, r Report) []byte {
	t.Helper()
	var text, md, js bytes.Buffer
	if err := r.Text(&text); err != nil {
		t.Fatal(err)
	}
	if err := r.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	golden(t, base+".txt", text.Bytes())
	golden(t, base+".md", md.Bytes())
	golden(t, base+".json", js.Bytes())
	return js.Bytes()
}

func TestTrialsRenderersGolden(t *testing.T) {
	sp, trials := reportFixture(t)
	var text, csv bytes.Buffer
	if err := TrialsText(&text, sp, trials); err != nil {
		t.Fatal(err)
	}
	if err := TrialsCSV(&csv, trials); err != nil {
		t.Fatal(err)
	}
	golden(t, "trials.txt", text.Bytes())
	golden(t, "trials.csv", csv.Bytes())
}

func TestReportJSONCarriesMissingValuesAsNull(t *testing.T) {
	sp, trials := reportFixture(t)
	trials[0].Metrics = nil // a baseline with no measurement
	trials[0].State = store.Complete
	var js bytes.Buffer
	if err := BuildReport(sp, trials, nil).JSON(&js); err != nil {
		t.Fatalf("JSON with NaN values: %v", err)
	}
	if !bytes.Contains(js.Bytes(), []byte("null")) {
		t.Errorf("missing values not rendered as null:\n%s", js.String())
	}
}

func TestFrontFlagsMembersWithinNoise(t *testing.T) {
	sp, trials := reportFixture(t)
	// Trial 8 trades 1% throughput for 1% TPOT against trial 2: both stay
	// on the front, but the difference is noise.
	m := map[string]map[string]float64{"balanced": {"total_tps": 17325, "mean_tpot_ms": 216, "p99_ttft_ms": 1000}}
	trials = append(trials, store.Trial{Number: 8, State: store.Complete, Origin: "sampler", Config: space.Config{"engine": "sglang", "max_running": int64(200)}, Metrics: m})
	r := BuildReport(sp, trials, nil)
	if r.NoiseMeasured || r.NoiseCV != DefaultNoiseCV {
		t.Errorf("noise = %v (measured %v), want the default", r.NoiseCV, r.NoiseMeasured)
	}
	tied := map[int]bool{}
	for _, w := range r.Winners {
		tied[w.Trial] = w.WithinNoise
	}
	if !tied[2] || !tied[8] || tied[3] {
		t.Errorf("within-noise flags %v: want trials 2 and 8 flagged, 3 not", tied)
	}
}

func TestNoiseMeasuredFromRepeats(t *testing.T) {
	sp, trials := reportFixture(t)
	rep := trials[1]
	rep.Number = 9
	rep.Metrics = map[string]map[string]float64{"balanced": {"total_tps": 17500 * 1.1, "mean_tpot_ms": 218, "p99_ttft_ms": 1900}}
	trials = append(trials, rep)
	cv, df := noiseCV(sp, trials)
	// Two measurements 17500 and 19250: mean 18375, sample std 1237.4.
	if df != 1 || math.Abs(cv-1237.4/18375) > 1e-3 {
		t.Errorf("cv = %v (%d degrees of freedom), want ≈ %.4f from 1", cv, df, 1237.4/18375)
	}
}

// Trials that ran on workers list their worker and GPUs, in text and CSV.
func TestTrialsRenderersSayWhereTrialsRan(t *testing.T) {
	sp, trials := reportFixture(t)
	trials[1].Worker, trials[1].Devices = "gpu07:4121/1", []string{"2", "3"}
	var text, csv bytes.Buffer
	if err := TrialsText(&text, sp, trials); err != nil {
		t.Fatal(err)
	}
	if err := TrialsCSV(&csv, trials); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "worker") || !strings.Contains(text.String(), "gpu07:4121/1  2,3") {
		t.Errorf("text listing does not say where trial %d ran:\n%s", trials[1].Number, text.String())
	}
	if !strings.Contains(csv.String(), ",worker,gpus,") || !strings.Contains(csv.String(), `gpu07:4121/1,"2,3"`) {
		t.Errorf("CSV does not say where trial %d ran:\n%s", trials[1].Number, csv.String())
	}
}
