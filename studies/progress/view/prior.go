package view

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// The simulator prior predicts hundreds of configs before the first trial
// (search/prior: 512 screenings on shortened benchmarks, climbs, then
// full predictions of the best): tens of seconds during which nothing
// else happens. The bar counts that work in screening units: a full
// prediction costs predictCost of them (measured on examples/guarded.toml
// on two cores: 16 screenings a second, then 2 full predictions). How
// many of each the start makes is an estimate fitted to the examples
// (about 512+45 screenings and 28 full predictions per objective; rules
// and climbs vary it), so the bar stops at 99% until the first trial
// starts and its ETA says "~".
const predictCost = 8

func priorStartWork(sp *space.Space, screens bool) float64 {
	n := float64(len(sp.Objectives))
	screenings, full := 512+45*n, 28*n
	if !screens { // a prior without a cheaper screening predicts everything in full
		return predictCost * (screenings + full)
	}
	return screenings + predictCost*full
}

// screening is the prior's start-up as the view shows it.
type screening struct {
	started time.Time
	calls   int
	// work and total are in screening units (predictCost a prediction).
	work, total float64
	// over: the first trial started; later predictions are the prior's
	// ordinary work between trials.
	over bool
}

func (s *screening) call(now time.Time, full bool) {
	if s.calls == 0 {
		s.started = now
	}
	s.calls++
	s.work++
	if full {
		s.work += predictCost - 1
	}
}

func (s screening) active() bool { return s.calls > 0 && !s.over }

// fraction is how far the start-up has come, below 1 until it is over.
func (s screening) fraction() float64 {
	if s.total <= 0 {
		return 0
	}
	return min(s.work/s.total, 0.99)
}

// eta is the start-up's own remaining time at its rate so far.
func (s screening) eta(now time.Time) (time.Duration, bool) {
	spent := now.Sub(s.started)
	if s.calls < 8 || spent <= 0 {
		return 0, false
	}
	return time.Duration(float64(spent) / s.work * max(s.total-s.work, 0)), true
}

// line is the start-up's line in the live block: what it is doing, a bar,
// its own ETA; short enough for an 80-column terminal.
func (s screening) line(now time.Time) string {
	l := fmt.Sprintf("  prior: simulating configs %s %.0f%% (%d) · %s",
		bar(s.fraction(), 20), s.fraction()*100, s.calls, now.Sub(s.started).Round(time.Second))
	if eta, ok := s.eta(now); ok {
		l += " · ETA ~" + eta.Round(time.Second).String()
	}
	return l
}

// bar draws fraction f of width cells.
func bar(f float64, width int) string {
	n := int(f*float64(width) + 0.5)
	n = min(max(n, 0), width)
	return "▕" + strings.Repeat("█", n) + strings.Repeat("░", width-n) + "▏"
}

// watchedPrior tells the view of each prediction the prior makes.
type watchedPrior struct {
	search.Prior
	call func(full bool)
}

func (w watchedPrior) Predict(ctx context.Context, c space.Config) ([]float64, bool) {
	defer w.call(true)
	return w.Prior.Predict(ctx, c)
}

// Intervals passes on the prior's stated intervals (search.IntervalPrior):
// watching a prior must not hide how far to trust it.
func (w watchedPrior) Intervals(c space.Config, values []float64) []*search.Interval {
	return search.PriorIntervals(w.Prior, c, values)
}

// watchedScreener keeps the prior's cheaper screening (search.Screener).
type watchedScreener struct {
	watchedPrior
	screen search.Screener
}

func (w watchedScreener) Screen(ctx context.Context, c space.Config) ([]float64, bool) {
	defer w.call(false)
	return w.screen.Screen(ctx, c)
}

// watchPrior wraps the study's prior (nil stays nil) so the view can say
// what the start is doing; screens says whether it screens.
func watchPrior(p search.Prior, call func(full bool)) (_ search.Prior, screens bool) {
	if p == nil {
		return nil, false
	}
	w := watchedPrior{Prior: p, call: call}
	if sc, ok := p.(search.Screener); ok {
		return watchedScreener{watchedPrior: w, screen: sc}, true
	}
	return w, false
}

// Known passes on the configs a cached prior screened before (search
// resumes its screening from them); a wrapper that hid it would make
// every resume screen the space again.
func (w watchedPrior) Known() []space.Config {
	if k, ok := w.Prior.(interface{ Known() []space.Config }); ok {
		return k.Known()
	}
	return nil
}
