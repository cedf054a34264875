package objective

import (
	"context"
	"testing"

	"github.com/servetune/servetune/space"
)

// Every trial's throughputs come with their per-GPU figure, over the GPUs
// its config occupies (tp × dp), at the end and at each checkpoint, so a
// per-GPU objective is judged and pruned like any other.
func TestMeasureAddsPerGPUThroughputs(t *testing.T) {
	var judged map[string]float64
	r := runnerFunc(func(_ context.Context, tr Trial) (Result, error) {
		res := Result{Metrics: map[string]map[string]float64{"p": {"total_tps": 8000, "completed": 10, "failed": 0}}}
		tr.Report(&res, "p", 5, map[string]float64{"output_tps": 400})
		return res, nil
	})
	tr := Trial{Config: space.Config{"engine": "vllm", "tp": int64(2), "dp": int64(2)}, Target: space.Target{Engine: "vllm", GPUs: 8},
		Judge: func(c Checkpoint) Verdict { judged = c.Metrics; return Verdict{} }}
	res, err := Measure(context.Background(), r, tr)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Metrics["p"]["total_tps_per_gpu"]; got != 2000 {
		t.Errorf("total_tps_per_gpu = %v, want 8000 / 4", got)
	}
	if got := judged["output_tps_per_gpu"]; got != 100 {
		t.Errorf("checkpoint output_tps_per_gpu = %v, want 400 / 4", got)
	}
}
