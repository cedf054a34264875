package objective

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/engines"
)

// errTrialTimeout is the cause of a trial's context ending at its limit.
var errTrialTimeout = errors.New("trial time limit")

// Measure runs one trial on r within the trial's time limit, adds each
// throughput's per-GPU figure (bench.WithPerGPU, over the config's GPUs)
// and, with a price file, the cost metrics (derived), and judges its benchmark: a trial that outlives Trial.Timeout is torn down and
// fails with class timeout; one whose requests failed beyond
// Trial.MaxFailedFraction fails with class bench_failed, since its
// figures describe errors, not the config. Its error is nil, ErrPruned,
// an *engines.Failure, or ctx's own error when ctx ended.
func Measure(ctx context.Context, r Runner, t Trial) (Result, error) {
	tctx := ctx
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeoutCause(ctx, t.Timeout, errTrialTimeout)
		defer cancel()
	}
	res, err := r.Run(tctx, t)
	for p, m := range res.Metrics {
		res.Metrics[p] = derived(m, t)
	}
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(tctx), errTrialTimeout) {
		return res, &engines.Failure{Class: engines.Timeout,
			Message: fmt.Sprintf("the trial did not finish within its time limit of %v (target.trial_timeout)", t.Timeout)}
	}
	if err == nil {
		err = judge(res, t.MaxFailedFraction)
	}
	return res, err
}

// judge fails a benchmark in which no request succeeded, or more than
// maxFailed of the requests that finished failed. Requests cut off by a
// deadline are not failures unless nothing succeeded.
func judge(res Result, maxFailed float64) error {
	for _, profile := range slices.Sorted(maps.Keys(res.Metrics)) {
		m := res.Metrics[profile]
		ok, counted := m[bench.MetricCompleted]
		failed := m[bench.MetricFailed]
		if !counted || ok > 0 && failed <= maxFailed*(ok+failed) {
			continue
		}
		msg := fmt.Sprintf("profile %q: %.0f of %.0f requests failed", profile, failed, ok+failed)
		if ok == 0 {
			msg = fmt.Sprintf("profile %q: no request succeeded (%.0f failed)", profile, failed)
		}
		if why := res.Errors[profile]; why != "" {
			msg += "; most often: " + why
		}
		return &engines.Failure{Class: engines.BenchFailed, Message: msg}
	}
	return nil
}

// DefaultTrialTimeout is the floor of a trial's time limit when the space
// sets none: a real engine's launch alone can take many minutes.
const DefaultTrialTimeout = 30 * time.Minute

func (r *Result) addError(profile, msg string) {
	if r.Errors == nil {
		r.Errors = map[string]string{}
	}
	r.Errors[profile] = msg
}
