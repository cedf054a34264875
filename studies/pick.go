package studies

import (
	"context"
	"time"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

// next is a config to run and why.
type next struct {
	cfg     space.Config
	origin  string
	retryOf int
	// prediction is the prior's forecast for a sampler's proposal.
	prediction *store.Prediction
}

// pick chooses the next config: retries of interrupted trials (an
// interrupted baseline is retried as the baseline), the baseline, enqueued
// configs, repeats, noise repeats and confirmations, then the sampler.
func (l *loop) pick(ctx context.Context) (next, error) {
	x := l.index()
	if x.baselineRunning > 0 {
		// Guards and baseline_agreement compare with the baseline's
		// result: it runs before anything else starts.
		return next{}, errWait
	}
	for _, i := range x.interrupted {
		if t := l.trials[i]; x.retries[t.Number] == 0 {
			origin := "retry"
			if t.Origin == "baseline" {
				origin = "baseline"
			}
			return next{cfg: t.Config, origin: origin, retryOf: t.Number}, nil
		}
	}
	if l.Space.Baseline != nil && x.baselineSettled == 0 {
		return next{cfg: l.Space.WithTargetEngine(l.Space.Baseline), origin: "baseline"}, nil
	}
	if n, ok := l.enqueued(); ok {
		return n, nil
	}
	if n, ok := l.repeatNext(); ok {
		return n, nil
	}
	if n, ok := l.confirmNext(); ok {
		return n, nil
	}
	c, err := l.ask(ctx)
	if err != nil {
		return next{}, err
	}
	n := explain(l.sampler, next{cfg: l.Space.WithTargetEngine(c), origin: "sampler"})
	if l.prunedOnly(n.cfg) {
		// Whoever proposes a pruned config again asks to revisit it: the
		// store claims it as one (a plain proposal of it is taken).
		n.origin = "revisit"
	}
	return n, nil
}

// repeatNext is the first complete measurement (in trial order) whose
// config was measured, or is running, fewer than Repeat times. With
// Repeat = 1 there is none: the trial itself is one measurement.
func (l *loop) repeatNext() (next, bool) {
	if l.Repeat <= 1 {
		return next{}, false
	}
	if i := l.index().shortOf(l.trials, l.Repeat); i >= 0 {
		return next{cfg: l.trials[i].Config, origin: "repeat"}, true
	}
	return next{}, false
}

// prunedOnly says whether c's only trials, interrupted ones aside, were
// pruned.
func (l *loop) prunedOnly(c space.Config) bool {
	x, key := l.index(), c.Key()
	return x.settled[key] > 0 && x.unpruned[key] == 0
}

// enqueued is the first enqueued config not measured yet: the space's
// own, then those of --warm-start.
func (l *loop) enqueued() (next, bool) {
	x := l.index()
	for i, c := range append(append([]space.Config(nil), l.Enqueue...), l.WarmStart...) {
		c = l.Space.WithTargetEngine(c)
		if x.settled[c.Key()] == 0 {
			origin := "enqueued"
			if i >= len(l.Enqueue) {
				origin = "warm-start"
			}
			return next{cfg: c, origin: origin}, true
		}
	}
	return next{}, false
}

func gpuTime(ts []store.Trial) time.Duration {
	s := 0.0
	for _, t := range ts {
		s += t.GPUSeconds
	}
	return time.Duration(s * float64(time.Second))
}

// spent is the GPU time the loop's trials have charged (gpuTime).
func (l *loop) spent() time.Duration {
	return time.Duration(l.index().gpu * float64(time.Second))
}

// measured returns a finished trial of the same config when the config
// has been measured Repeat times already.
func (l *loop) measured(c space.Config) *store.Trial {
	n, first := l.index().measurements(c)
	if n < l.Repeat || first < 0 {
		return nil
	}
	t := l.trials[first]
	return &t
}

// byNumber is the trial numbered n (zero if none).
func (l *loop) byNumber(n int) store.Trial {
	if i, ok := l.index().pos[n]; ok {
		return l.trials[i]
	}
	return store.Trial{}
}

// best is the best feasible trial so far on the first objective
// (search.Best over the complete trials' points).
func (l *loop) best() *store.Trial {
	if b := l.index().ranked(l.trials).best; b >= 0 {
		t := l.trials[b]
		return &t
	}
	return nil
}
