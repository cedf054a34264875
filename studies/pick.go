package studies

import (
	"context"
	"time"

	"github.com/servetune/servetune/search"
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
	if l.has(func(t store.Trial) bool { return t.State == store.Running && t.Origin == "baseline" }) {
		// Guards and baseline_agreement compare with the baseline's
		// result: it runs before anything else starts.
		return next{}, errWait
	}
	for _, t := range l.trials {
		if t.State == store.Interrupted && t.RetryOf == 0 && !l.has(func(u store.Trial) bool { return u.RetryOf == t.Number }) {
			origin := "retry"
			if t.Origin == "baseline" {
				origin = "baseline"
			}
			return next{cfg: t.Config, origin: origin, retryOf: t.Number}, nil
		}
	}
	if l.Space.Baseline != nil && !l.has(func(t store.Trial) bool { return t.Origin == "baseline" && t.State != store.Interrupted }) {
		return next{cfg: l.Space.WithTargetEngine(l.Space.Baseline), origin: "baseline"}, nil
	}
	if n, ok := l.enqueued(); ok {
		return n, nil
	}
	for _, t := range l.trials {
		if t.State == store.Complete && t.ReusedFrom == 0 && l.count(t.Config)+l.runningOf(t.Config) < l.Repeat {
			return next{cfg: t.Config, origin: "repeat"}, nil
		}
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

// prunedOnly says whether c's only trials, interrupted ones aside, were
// pruned.
func (l *loop) prunedOnly(c space.Config) bool {
	key, pruned := c.Key(), false
	for _, t := range l.trials {
		if t.Config.Key() != key || t.State == store.Interrupted {
			continue
		}
		if t.State != store.Pruned {
			return false
		}
		pruned = true
	}
	return pruned
}

// enqueued is the first enqueued config not measured yet: the space's
// own, then those of --warm-start.
func (l *loop) enqueued() (next, bool) {
	for i, c := range append(append([]space.Config(nil), l.Enqueue...), l.WarmStart...) {
		c = l.Space.WithTargetEngine(c)
		if !l.has(func(t store.Trial) bool { return t.Config.Key() == c.Key() && t.State != store.Interrupted }) {
			origin := "enqueued"
			if i >= len(l.Enqueue) {
				origin = "warm-start"
			}
			return next{cfg: c, origin: origin}, true
		}
	}
	return next{}, false
}

// runningOf is how many running trials measure config c.
func (l *loop) runningOf(c space.Config) int {
	key, n := c.Key(), 0
	for _, t := range l.trials {
		if t.State == store.Running && t.ReusedFrom == 0 && t.Config.Key() == key {
			n++
		}
	}
	return n
}

func (l *loop) has(f func(store.Trial) bool) bool {
	for _, t := range l.trials {
		if f(t) {
			return true
		}
	}
	return false
}

func gpuTime(ts []store.Trial) time.Duration {
	s := 0.0
	for _, t := range ts {
		s += t.GPUSeconds
	}
	return time.Duration(s * float64(time.Second))
}

// count is how many times a config was measured (not reused).
func (l *loop) count(c space.Config) int {
	key, n := l.reuseKey(c), 0
	for _, t := range l.trials {
		if l.reuseKey(t.Config) == key && t.ReusedFrom == 0 && (t.State == store.Complete || t.State == store.Infeasible) {
			n++
		}
	}
	return n
}

// measured returns a finished trial of the same config when the config
// has been measured Repeat times already.
func (l *loop) measured(c space.Config) *store.Trial {
	if l.count(c) < l.Repeat {
		return nil
	}
	key := l.reuseKey(c)
	for i := range l.trials {
		t := &l.trials[i]
		if l.reuseKey(t.Config) == key && t.ReusedFrom == 0 && (t.State == store.Complete || t.State == store.Infeasible) {
			return t
		}
	}
	return nil
}

func (l *loop) reuseKey(c space.Config) string {
	if l.ReuseKey != nil {
		return l.ReuseKey(c)
	}
	return c.Key()
}

func (l *loop) byNumber(n int) store.Trial {
	for _, t := range l.trials {
		if t.Number == n {
			return t
		}
	}
	return store.Trial{}
}

func (l *loop) best() *store.Trial {
	pts, idx := points(l.Space, l.trials)
	if b := search.Best(pts, l.Space.Objectives); b >= 0 {
		t := l.trials[idx[b]]
		return &t
	}
	return nil
}
