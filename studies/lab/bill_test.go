package lab

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
)

func TestPrunedBillChargesStartupInFull(t *testing.T) {
	for _, c := range []struct {
		name                 string
		total, startup, want float64
		step, steps          int
	}{
		{"stopped at the first tenth", 1000, 400, 460, 1, 10},
		{"stopped half way", 1000, 400, 700, 5, 10},
		{"ran to the end", 1000, 400, 1000, 10, 10},
		{"no start-up cost", 1000, 0, 300, 3, 10},
		{"start-up is all of it", 400, 400, 400, 2, 10},
		{"start-up estimate above the total is capped", 300, 400, 300, 2, 10},
		{"step past the end bills the whole trial", 1000, 400, 1000, 12, 10},
		{"no checkpoints bills the whole trial", 1000, 400, 1000, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := prunedBill(c.total, c.startup, c.step, c.steps); math.Abs(got-c.want) > 1e-9 {
				t.Errorf("prunedBill(%v, %v, %d, %d) = %v, want %v", c.total, c.startup, c.step, c.steps, got, c.want)
			}
		})
	}
}

// A trial the judge stops at the first checkpoint still pays its
// engine's whole start-up, as the simulator runner behind `servetune run`
// charges it.
func TestLabBillsAPrunedTrialLikeRun(t *testing.T) {
	sp, err := Load("qwen3")
	if err != nil {
		t.Fatal(err)
	}
	o := NewOracle(sp)
	c := sp.WithTargetEngine(space.Config{"engine": "vllm"})
	stop := func(objective.Checkpoint) objective.Verdict { return objective.Verdict{Stop: true} }
	trial := objective.Trial{Config: c, Target: sp.Target, Profiles: sp.Profiles, Seed: 1, Judge: stop}
	res, err := (&noisyRunner{o: o}).Run(context.Background(), trial)
	if !errors.Is(err, objective.ErrPruned) {
		t.Fatalf("err %v, want pruned", err)
	}
	full, startup := o.Eval(context.Background(), c).gpuSeconds, o.startupGPUSeconds(c)
	if startup <= 0 || startup >= full {
		t.Fatalf("start-up %v of a %v trial: the check below would prove nothing", startup, full)
	}
	want := startup + (full-startup)/bench.Checkpoints
	if math.Abs(res.GPUSeconds-want) > 1e-6 {
		t.Errorf("pruned at step 1 billed %v GPU-s, want start-up %v + a tenth of the benchmark = %v", res.GPUSeconds, startup, want)
	}
}
