package objective

import (
	"context"
	"errors"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/space"
)

var qwenTarget = space.Target{Runner: "sim", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1}

func smallProfile(name string, conc int) bench.Profile {
	return bench.Profile{Name: name, Dataset: "random", InputLen: 512, OutputLen: 64, NumPrompts: 40, MaxConcurrency: conc, Seed: 1}
}

func TestSimRunnerFillsEveryProfileAndChargesSimulatedGPUTime(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "tp": int64(2)}
	tgt := qwenTarget
	tgt.GPUs = 2
	var phases []Phase
	tr := Trial{Config: cfg, Target: tgt, Seed: 3,
		Profiles: []bench.Profile{smallProfile("a", 4), smallProfile("b", 16)},
		OnPhase:  func(p Phase) { phases = append(phases, p) }}
	res, err := NewSimRunner().Run(context.Background(), tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a", "b"} {
		m := res.Metrics[name]
		if m["completed"] != 40 || m["total_tps"] <= 0 || m["mean_tpot_ms"] <= 0 {
			t.Fatalf("profile %s metrics incomplete: completed=%v total_tps=%v", name, m["completed"], m["total_tps"])
		}
	}
	if res.Metrics["b"]["total_tps"] <= res.Metrics["a"]["total_tps"] {
		t.Errorf("concurrency 16 should out-throughput concurrency 4: %v vs %v", res.Metrics["b"]["total_tps"], res.Metrics["a"]["total_tps"])
	}
	s := sim.New()
	want := (s.StartupTime(cfg, tgt).Seconds() + res.Metrics["a"]["duration_s"] + res.Metrics["b"]["duration_s"]) * 2
	if math.Abs(res.GPUSeconds-want) > 1e-6*want {
		t.Errorf("GPUSeconds = %v, want startup+benchmarks × 2 GPUs = %v", res.GPUSeconds, want)
	}
	if len(phases) == 0 || phases[0] != Launching || phases[len(phases)-1] != TearingDown {
		t.Errorf("phases = %v", phases)
	}
}

func TestSimRunnerFailureIsClassifiedAndStillCharged(t *testing.T) {
	tgt := space.Target{Model: "zai-org/GLM-5.2-FP8", GPU: "H100", GPUs: 4}
	res, err := NewSimRunner().Run(context.Background(), Trial{
		Config: space.Config{"engine": "vllm", "tp": int64(4)}, Target: tgt,
		Profiles: []bench.Profile{smallProfile("a", 4)}})
	f, ok := engines.AsFailure(err)
	if !ok || f.Class != engines.OOM {
		t.Fatalf("744B model on 4×H100: err = %v, want an OOM failure", err)
	}
	if res.GPUSeconds <= 0 {
		t.Errorf("a failed launch still costs GPU time, got %v", res.GPUSeconds)
	}
}

// A simulated trial whose requests fail says why in its failure: the
// judge's "N of M requests failed" carries the simulator's most common
// request failure and its count (here a disaggregated deployment cut off
// by max_duration), so show, show --json and the report print it.
func TestSimFailedTrialNamesTheDominantRequestFailure(t *testing.T) {
	cfg := space.Config{"engine": "sglang", "disaggregation": "pd", "prefill_instances": int64(1), "decode_instances": int64(1)}
	tgt := qwenTarget
	tgt.GPUs = 2
	p := bench.Profile{Name: "cut", Dataset: "random", InputLen: 4096, OutputLen: 1024, NumPrompts: 400,
		MaxConcurrency: 400, MaxDuration: 5 * time.Second, Seed: 1}
	_, err := Measure(context.Background(), NewSimRunner(), Trial{Config: cfg, Target: tgt, Seed: 1, Profiles: []bench.Profile{p}})
	var f *engines.Failure
	if !errors.As(err, &f) || f.Class != engines.BenchFailed {
		t.Fatalf("want a bench_failed failure, got %v", err)
	}
	re := regexp.MustCompile(`\((\d+) failed\); most often: (\d+)× sim: benchmark stopped at max_duration$`)
	m := re.FindStringSubmatch(f.Message)
	if m == nil {
		t.Fatalf("failure does not name the dominant request failure: %q", f.Message)
	}
	if failed, _ := strconv.Atoi(m[1]); m[2] != m[1] || failed < 1 {
		t.Fatalf("every failed request was cut off, the count should say so: %q", f.Message)
	}
}
