package objective

import (
	"context"
	"fmt"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
	"github.com/servetune/servetune/engines/sim"
)

// SimRunner measures trials on the built-in simulator, in-process and on
// a simulated clock: a trial costs milliseconds of CPU but reports the GPU
// time the real engine would have spent, so GPU-hour budgets keep their
// meaning.
type SimRunner struct {
	sim *sim.Simulator
	// Summary controls percentiles and goodput of the summarised metrics.
	Summary bench.SummaryOptions
}

// SimOption configures a SimRunner.
type SimOption func(*SimRunner)

// WithSimulator uses a simulator with custom cards.
func WithSimulator(s *sim.Simulator) SimOption { return func(r *SimRunner) { r.sim = s } }

// WithSummary sets the options used to summarise each profile's records.
func WithSummary(o bench.SummaryOptions) SimOption { return func(r *SimRunner) { r.Summary = o } }

// NewSimRunner returns a Runner backed by the simulator.
func NewSimRunner(opts ...SimOption) *SimRunner {
	r := &SimRunner{}
	for _, o := range opts {
		o(r)
	}
	if r.sim == nil {
		r.sim = sim.New()
	}
	return r
}

var _ Runner = (*SimRunner)(nil)

// Run evaluates every profile of the trial. GPUSeconds is the simulated
// startup plus each profile's simulated benchmark duration, times the GPUs
// the config occupies; a config that fails at startup is charged the
// startup it would have wasted.
func (r *SimRunner) Run(ctx context.Context, t Trial) (Result, error) {
	res := Result{Metrics: map[string]map[string]float64{}}
	phase := func(p Phase) {
		if t.OnPhase != nil {
			t.OnPhase(p)
		}
	}
	gpus := float64(r.sim.GPUs(t.Config, t.Target))
	simulated := r.sim.StartupTime(t.Config, t.Target)
	charge := func() { res.GPUSeconds = simulated.Seconds() * gpus; res.Duration = simulated }
	phase(Launching)
	for i, p := range t.Profiles {
		if err := ctx.Err(); err != nil {
			charge()
			return res, err
		}
		phase(Benchmarking)
		recs, dur, err := r.sim.Evaluate(ctx, t.Config, t.Target, p, t.Seed+int64(i))
		if err != nil {
			charge()
			if _, ok := engines.AsFailure(err); ok {
				return res, err
			}
			return res, fmt.Errorf("simulate profile %q: %w", p.Name, err)
		}
		simulated += dur
		res.Metrics[p.Name] = bench.Summarize(recs, dur, r.Summary).Values()
	}
	phase(TearingDown)
	charge()
	return res, nil
}
