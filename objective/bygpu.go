package objective

import "context"

// ByGPU measures each trial where its GPU type says
// (space.Target.RunnerOf): a type the target simulates on Sim, every
// other on Real. It is the one place a real runner's study routes a
// trial; the study records the same decision with the trial. A simulated
// trial costs no GPU time: nothing ran on a GPU, so a --budget of device
// time goes to the measured types only.
type ByGPU struct {
	Real Runner
	Sim  Runner
}

var _ Runner = ByGPU{}

// Run measures t on the runner its GPU type calls for.
func (r ByGPU) Run(ctx context.Context, t Trial) (Result, error) {
	if t.Target.RunnerOf(t.Config) != "sim" {
		return r.Real.Run(ctx, t)
	}
	t.Target.Runner = "sim"
	res, err := r.Sim.Run(ctx, t)
	res.GPUSeconds = 0
	return res, err
}

// Close closes the real runner when it keeps anything open (a warm
// engine kept for reuse).
func (r ByGPU) Close(ctx context.Context) error {
	if c, ok := r.Real.(interface{ Close(context.Context) error }); ok {
		return c.Close(ctx)
	}
	return nil
}
