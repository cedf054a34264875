package calibrate

import (
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines/sim"
	"github.com/servetune/servetune/engines/sim/calib/measure"
	"github.com/servetune/servetune/objective"
)

// Without "gpus" a run occupies what its config does: a tp=2 run is
// simulated on two GPUs, not refused for want of them.
func TestMeasuredRunTakesTheConfigsGPUs(t *testing.T) {
	src := []byte(`{"engine": "vllm", "model": "Qwen/Qwen3-8B", "gpu": "H100", "config": {"tp": 2},
 "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 4, "mean_ttft_ms": 9}}`)
	ms, err := measure.Parse("r.json", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRun(ms[0], sim.DefaultCards(), zerolog.Nop())
	if err != nil {
		t.Fatal(err)
	}
	if r.target.GPUs != 2 {
		t.Errorf("target GPUs %d, want the config's 2", r.target.GPUs)
	}
	runner := objective.NewSimRunner()
	if _, err := runner.Run(context.Background(), objective.Trial{Config: r.cfg, Target: r.target, Profiles: []bench.Profile{r.profile}}); err != nil {
		t.Errorf("the simulator refuses the run: %v", err)
	}
}

// TestMeasuredRunRefusals: a run's engine and GPU count are checked
// naming the key at fault (an unknown engine used to be reported as
// config.tp, its first knob).
func TestMeasuredRunRefusals(t *testing.T) {
	const run = `{"engine": "vllm", "model": "Qwen/Qwen3-8B", "gpu": "H100", "gpus": 1, "config": {"tp": 1},
 "result": {"completed": 4, "total_input_tokens": 40, "total_output_tokens": 4, "mean_ttft_ms": 9}}`
	cases := []struct{ name, src, want string }{
		{"unknown engine", strings.Replace(run, `"vllm"`, `"vlm"`, 1), `r.json:1: engine: unknown engine "vlm"; did you mean "vllm"?`},
		{"tp above gpus", strings.Replace(run, `"tp": 1`, `"tp": 8`, 1), "r.json:1: config.tp: the config needs 8 GPUs"},
		{"tp × dp above gpus", strings.Replace(run, `"tp": 1`, `"tp": 1, "dp": 2`, 1), "r.json:1: gpus: the config needs 2 GPUs"},
	}
	for _, c := range cases {
		ms, err := measure.Parse("r.json", []byte(c.src), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := NewRun(ms[0], sim.DefaultCards(), zerolog.Nop()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
