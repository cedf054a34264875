package objective

import (
	"context"
	"math"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/space"
)

// recording is a Runner that records the trials it was given and answers
// with res.
type recording struct {
	inner  Runner
	res    Result
	trials []Trial
}

func (r *recording) Run(ctx context.Context, t Trial) (Result, error) {
	r.trials = append(r.trials, t)
	if r.inner != nil {
		return r.inner.Run(ctx, t)
	}
	return r.res, nil
}

// A real runner's study owning H100 and simulating H200: an H100 trial
// goes to the real runner alone, an H200 trial to the simulator alone,
// which states its intervals and charges no GPU time.
func TestByGPURoutesEachTrialByItsGPUType(t *testing.T) {
	owned := space.Target{Runner: "process", Model: "Qwen/Qwen3-8B", GPU: "H100", GPUs: 1, SimulatedGPUs: []string{"H200"}}
	real := &recording{res: Result{GPUSeconds: 120, Metrics: map[string]map[string]float64{"a": {"total_tps": 1}}}}
	sim := &recording{inner: NewSimRunner(WithIntervals())}
	r := ByGPU{Real: real, Sim: sim}
	profiles := []bench.Profile{smallProfile("a", 4)}

	res, err := r.Run(context.Background(), Trial{Number: 1, Config: space.Config{"gpu": "H100", "engine": "vllm"}, Target: owned, Profiles: profiles})
	if err != nil || res.GPUSeconds != 120 || len(real.trials) != 1 || len(sim.trials) != 0 {
		t.Fatalf("owned trial: %v, GPU-seconds %v, real ran %d, sim ran %d", err, res.GPUSeconds, len(real.trials), len(sim.trials))
	}

	res, err = r.Run(context.Background(), Trial{Number: 2, Config: space.Config{"gpu": "H200", "engine": "vllm"}, Target: owned, Profiles: profiles})
	if err != nil {
		t.Fatal(err)
	}
	if len(real.trials) != 1 || len(sim.trials) != 1 {
		t.Fatalf("simulated trial: real ran %d, sim ran %d", len(real.trials), len(sim.trials))
	}
	if got := sim.trials[0].Target; got.Runner != "sim" || got.GPUOf(sim.trials[0].Config) != "H200" {
		t.Errorf("the simulator got target runner %q on %q", got.Runner, got.GPUOf(sim.trials[0].Config))
	}
	if res.GPUSeconds != 0 {
		t.Errorf("a simulated trial charged %v GPU-seconds", res.GPUSeconds)
	}
	iv, ok := res.Intervals["a"]["mean_ttft_ms"]
	v := res.Metrics["a"]["mean_ttft_ms"]
	if !ok || !(iv.Lo95 < iv.Lo80 && iv.Lo80 < iv.Hi80 && iv.Hi80 < iv.Hi95) || !(iv.Lo95 < v*1.5 && iv.Hi95 > v/1.5) {
		t.Errorf("mean_ttft_ms %v: interval %+v (stated %v)", v, iv, ok)
	}
	for m, iv := range res.Intervals["a"] {
		for _, x := range []float64{iv.Lo80, iv.Hi80, iv.Lo95, iv.Hi95} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("%s: interval %+v is not finite", m, iv)
			}
		}
	}
	if _, ok := res.Intervals["a"]["total_tps"]; ok {
		t.Error("a throughput got an interval the simulator does not state")
	}
}

// A SimRunner not made WithIntervals states none: a simulated study's
// trials are as they were.
func TestSimRunnerStatesNoIntervalsUnlessAsked(t *testing.T) {
	res, err := NewSimRunner().Run(context.Background(), Trial{Config: space.Config{"engine": "vllm"}, Target: qwenTarget, Profiles: []bench.Profile{smallProfile("a", 4)}})
	if err != nil || res.Intervals != nil {
		t.Errorf("%v, intervals %v", err, res.Intervals)
	}
}
