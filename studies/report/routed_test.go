package report

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// The full report of a study that owns H100 and simulates H200 marks
// each row's source and a simulated value's interval, lists the best
// config per GPU type, and tells to measure the simulated pick before
// buying, in Markdown and HTML alike.
func TestFullReportSeparatesMeasuredFromSimulated(t *testing.T) {
	src := `
[study]
name = "owned"
[target]
runner = "process"
model = "Qwen/Qwen3-8B"
gpu = "H100"
engine = "vllm"
simulated_gpus = ["H200"]
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
[params.gpu]
values = ["H100", "H200"]
[params.max_running]
values = [32, 64]
`
	sp, err := space.Parse(context.Background(), "owned.toml", src, space.Options{Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true }})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	trials := []store.Trial{
		{Number: 1, State: store.Complete, Origin: "baseline", Runner: "process", Config: space.Config{"engine": "vllm", "gpu": "H100", "max_running": int64(32)},
			Metrics: map[string]map[string]float64{"balanced": {"mean_tpot_ms": 30}}, GPUSeconds: 600, Start: at, End: at.Add(time.Minute)},
		{Number: 2, State: store.Complete, Origin: "prior", Runner: "sim", Config: space.Config{"engine": "vllm", "gpu": "H200", "max_running": int64(64)},
			Metrics:   map[string]map[string]float64{"balanced": {"mean_tpot_ms": 18}},
			Intervals: map[string]map[string]store.Interval{"balanced": {"mean_tpot_ms": {Lo80: 16, Hi80: 20, Lo95: 14, Hi95: 22}}}, Start: at, End: at},
	}
	f := Build(sp, trials, nil, Meta{Version: "v0.0.0-test", Now: at})
	var md, html bytes.Buffer
	if err := f.Markdown(&md, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.HTML(&html); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": html.String()} {
		for _, want := range []string{"Best per GPU type", "H100: trial 1, mean_tpot_ms 30.00, measured", "H200: trial 2, mean_tpot_ms 18.00, simulated, 95% interval 14.00–22.00",
			"Simulated on H200: measure before buying", "18.0 [95%: 14", "2 (simulated)", "best mean_tpot_ms; simulated"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q", name, want)
			}
		}
	}
}
