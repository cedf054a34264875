package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

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
		t.Fatalf("missing golden file (go test ./studies/report -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s changed (go test ./studies/report -update to accept):\n%s", name, got)
	}
}

const fixtureSpace = `
[study]
name = "fixture"
[target]
model = "zai-org/GLM-5.2-FP8"
gpu = "H200"
gpus = 8
[target.engines.sglang]
version = "0.5.2"
[[objectives]]
metric = "total_tps"
direction = "maximize"
[[objectives]]
metric = "mean_tpot_ms"
direction = "minimize"
[profiles]
run = ["balanced", "decode_heavy"]
[params.engine]
values = ["vllm", "sglang"]
[params.dp]
values = [1, 8]
[params.mem_fraction]
low = 0.70
high = 0.95
step = 0.05
[params.max_running]
values = [64, 128, 256, 512]
[params.kv_cache_dtype]
values = ["auto", "fp8_e4m3"]
`

func fixtureSpaceOf(t testing.TB) *space.Space {
	t.Helper()
	sp, err := space.Parse(context.Background(), "fixture.toml", fixtureSpace, space.Options{
		Metric: bench.KnownMetric, Profile: func(n string) (bench.Profile, bool) { return bench.Profile{Name: n}, true },
	})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

// synthTrials is a deterministic study of n trials on fixtureSpace:
// throughput driven by dp and max_running, TPOT by max_running and the KV
// dtype, out of memory when mem_fraction and max_running are both high,
// every seventh trial pruned at its first checkpoint.
func synthTrials(n int) []store.Trial {
	rng := rand.New(rand.NewPCG(1, 2))
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	pick := func(xs ...any) any { return xs[rng.IntN(len(xs))] }
	var out []store.Trial
	for i := 1; i <= n; i++ {
		cfg := space.Config{"engine": pick("vllm", "sglang"), "dp": pick(int64(1), int64(8)),
			"mem_fraction": 0.7 + 0.05*float64(rng.IntN(6)), "max_running": pick(int64(64), int64(128), int64(256), int64(512)),
			"kv_cache_dtype": pick("auto", "fp8_e4m3")}
		t := store.Trial{Number: i, State: store.Complete, Origin: "sampler", Config: cfg, GPUSeconds: 3600 + float64(i%5)*600,
			Start: at.Add(time.Duration(i) * time.Minute), End: at.Add(time.Duration(i)*time.Minute + 50*time.Second)}
		if i == 1 {
			t.Origin, t.Config = "baseline", space.Config{"engine": "vllm"}
		}
		tps, tpot := synthMetrics(t.Config)
		if i > 1 {
			// The prior chose every third trial, and predicted each one
			// it was asked about 10% low on throughput.
			t.Prediction = &store.Prediction{Values: []float64{tps * 0.9, tpot * 1.05}, Feasible: i%13 != 0}
			if i%3 == 0 {
				t.Origin = "prior"
			}
		}
		switch {
		case i > 1 && cfg["mem_fraction"].(float64) >= 0.9 && cfg["max_running"].(int64) >= 256:
			t.State, t.GPUSeconds = store.Infeasible, 900
			t.Failure = &engines.Failure{Class: engines.OOM, Message: "CUDA out of memory. Tried to allocate 8.38 GiB.", Lines: []string{"Load weight end."}}
		case i > 1 && i%7 == 0:
			t.State, t.Reason = store.Pruned, "cannot reach the front at 25%"
			t.Intermediate = []search.Checkpoint{{Profile: "balanced", Step: 1, Values: []float64{tps * 0.9, tpot * 1.1}}}
		case i > 1 && i%11 == 0:
			t.State = store.Failed
			t.Failure = &engines.Failure{Class: engines.Class("crashed_during_benchmark"), Message: "worker died", Lines: []string{"RuntimeError: NCCL error"}}
		default:
			t.Metrics = map[string]map[string]float64{
				"balanced":     {"total_tps": tps, "output_tps": tps / 9, "mean_tpot_ms": tpot, "mean_itl_ms": tpot, "mean_ttft_ms": 1e6 / tps, "mean_e2e_ms": 1e6/tps + 1024*tpot},
				"decode_heavy": {"total_tps": tps * 0.6, "output_tps": tps * 0.3, "mean_tpot_ms": tpot * 1.2, "mean_ttft_ms": 5e5 / tps},
			}
		}
		out = append(out, t)
	}
	return out
}

func synthMetrics(c space.Config) (tps, tpot float64) {
	dp, _ := space.Number(c["dp"], false)
	mr, _ := space.Number(c["max_running"], false)
	if mr == 0 {
		mr = 256
	}
	tps = 5000 + 1500*math.Log2(math.Max(dp, 1)) + 10*mr
	tpot = 20 + mr/8
	if c["kv_cache_dtype"] == "fp8_e4m3" {
		tpot *= 0.8
	}
	if c["engine"] == "sglang" {
		tps *= 1.05
	}
	return tps, tpot
}

func fixtureRender(c space.Config) (string, error) {
	return fmt.Sprintf("serve %s", c.Summary()), nil
}

func fixtureFull(t testing.TB, n int) Full {
	t.Helper()
	return Build(fixtureSpaceOf(t), synthTrials(n), fixtureRender, Meta{Version: "v0.0.0-test", Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Outlook: fixtureOutlook()})
}

// fixtureOutlook is a prior's view of the fixture's engine knob.
func fixtureOutlook() []store.Region {
	v := func(x float64) *float64 { return &x }
	return []store.Region{
		{Knob: "engine", Value: "vllm", Best: []*float64{v(6000), v(30)}, Full: 12, Screened: 200},
		{Knob: "engine", Value: "sglang", Best: []*float64{v(11000), nil}, Full: 30, Screened: 300},
	}
}
