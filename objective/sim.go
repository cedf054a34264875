package objective

import (
	"context"
	"fmt"
	"sort"
	"time"

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
	// intervals: a finished trial's Result states the simulator's
	// intervals (WithIntervals).
	intervals bool
}

// SimOption configures a SimRunner.
type SimOption func(*SimRunner)

// WithSimulator uses a simulator with custom cards.
func WithSimulator(s *sim.Simulator) SimOption { return func(r *SimRunner) { r.sim = s } }

// WithSummary sets the options used to summarise each profile's records.
func WithSummary(o bench.SummaryOptions) SimOption { return func(r *SimRunner) { r.Summary = o } }

// WithIntervals states, with each trial that finishes, the simulator's
// 80/95% interval around every simulated metric it has one for
// (Result.Intervals): a real runner's study keeps them with the trials of
// the GPU types it simulates, whose values are predictions beside
// measurements.
func WithIntervals() SimOption { return func(r *SimRunner) { r.intervals = true } }

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
		pruned, err := r.profile(ctx, t, &res, i, p, &simulated)
		if err != nil {
			charge()
			if _, ok := engines.AsFailure(err); ok {
				return res, err
			}
			return res, fmt.Errorf("simulate profile %q: %w", p.Name, err)
		}
		if pruned {
			charge()
			return res, ErrPruned
		}
	}
	phase(TearingDown)
	charge()
	if r.intervals {
		r.stateIntervals(t, &res)
	}
	return res, nil
}

// stateIntervals fills res.Intervals from the simulator's stated
// uncertainty for t; none where it states none (a config it cannot
// resolve, a metric without a spread).
func (r *SimRunner) stateIntervals(t Trial, res *Result) {
	u, err := r.sim.Uncertainty(t.Config, t.Target)
	if err != nil {
		return
	}
	for profile, m := range res.Metrics {
		if ivs := u.MetricIntervals(m); ivs != nil {
			if res.Intervals == nil {
				res.Intervals = map[string]map[string]sim.Interval{}
			}
			res.Intervals[profile] = ivs
		}
	}
}

// profile measures the trial's i-th profile into res, adding the
// simulated time it took; true means the judge stopped the trial.
func (r *SimRunner) profile(ctx context.Context, t Trial, res *Result, i int, p bench.Profile, simulated *time.Duration) (bool, error) {
	opt := summaryFor(r.Summary, p)
	if p.SearchRate != nil {
		v, pruned, err := searchRate(ctx, t, res, p, func(ctx context.Context, q bench.Profile) (map[string]float64, error) {
			recs, dur, err := r.sim.Evaluate(ctx, t.Config, t.Target, q, t.Seed+int64(i))
			*simulated += dur
			return bench.Summarize(recs, dur, opt).Values(), err
		})
		if err == nil {
			res.Metrics[p.Name] = v
		}
		return pruned, err
	}
	recs, dur, err := r.sim.Evaluate(ctx, t.Config, t.Target, p, t.Seed+int64(i))
	if err != nil {
		return false, err
	}
	if step, at, partial := r.checkpoints(t, res, p.Name, recs, opt); step > 0 {
		*simulated += at
		res.Metrics[p.Name] = partial
		return true, nil
	}
	*simulated += dur
	res.Metrics[p.Name] = bench.Summarize(recs, dur, opt).Values()
	if msg, n := bench.DominantMessage(recs); n > 0 {
		res.addError(p.Name, fmt.Sprintf("%d× %s", n, msg)) // the judge's failure names it
	}
	return false, nil
}

// summaryFor is how a profile's records are summarised: goodput and SLO
// attainment count against the profile's own SLO, with its percentiles
// and stages.
func summaryFor(o bench.SummaryOptions, p bench.Profile) bench.SummaryOptions {
	return p.Summary(o)
}

// checkpoints replays the live client's intermediate reports on the
// simulated records: at each tenth of the requests finished, the metrics
// of the requests finished so far over the time so far. It returns the
// step at which the trial's judge stopped it (0 if it never did), the
// simulated time of that step and the partial metrics.
func (r *SimRunner) checkpoints(t Trial, res *Result, profile string, recs []bench.Record, opt bench.SummaryOptions) (int, time.Duration, map[string]float64) {
	if t.Judge == nil {
		return 0, 0, nil
	}
	var done []bench.Record
	for _, rec := range recs {
		if !rec.Warmup {
			done = append(done, rec)
		}
	}
	end := func(rec bench.Record) time.Duration { return rec.Start + rec.Latency }
	// Nine summaries per profile: skip the ITL distribution, which costs
	// more than the simulation itself; objectives on ITL are then judged
	// only at the end.
	opt.NoITL = true
	sort.Slice(done, func(i, j int) bool { return end(done[i]) < end(done[j]) })
	for _, cp := range bench.CheckpointSteps(len(done)) {
		at := end(done[cp.Requests-1])
		partial := bench.Summarize(done[:cp.Requests], at, opt).Values()
		if t.Report(res, profile, cp.Step, partial) {
			return cp.Step, at, partial
		}
	}
	return 0, 0, nil
}
