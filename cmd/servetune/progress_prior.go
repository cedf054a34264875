package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
)

// The simulator prior predicts hundreds of configs before the first trial
// (search.WithPrior: screenStart screenings, then full predictions of the
// best): tens of seconds on a laptop during which nothing else happens.
// priorStartCalls is how many predictions that start makes, for the
// bar's total: 512 screenings, then climbs and full predictions of the
// best per objective. It is an estimate fitted to the examples (583
// predictions with one objective, 667 and 682 with two), since rules and
// climbs vary it, so the bar stops at 99% until the first trial starts
// and its ETA says "~".
func priorStartCalls(sp *space.Space) int { return 497 + 85*len(sp.Objectives) }

// screening is the prior's start-up as the view shows it.
type screening struct {
	started time.Time
	calls   int
	total   int
	// over: the first trial started; later predictions are the prior's
	// ordinary work between trials.
	over bool
}

func (s *screening) call(now time.Time) {
	if s.calls == 0 {
		s.started = now
	}
	s.calls++
}

func (s screening) active() bool { return s.calls > 0 && !s.over }

// fraction is how far the start-up has come, below 1 until it is over.
func (s screening) fraction() float64 {
	if s.total <= 0 {
		return 0
	}
	return min(float64(s.calls)/float64(s.total), 0.99)
}

// eta is the start-up's own remaining time at its rate so far.
func (s screening) eta(now time.Time) (time.Duration, bool) {
	spent := now.Sub(s.started)
	if s.calls < 8 || spent <= 0 {
		return 0, false
	}
	left := max(s.total-s.calls, 0)
	return time.Duration(float64(spent) / float64(s.calls) * float64(left)), true
}

// line is the start-up's line in the live block: what it is doing, a bar,
// its own ETA.
func (s screening) line(now time.Time, width int) string {
	l := fmt.Sprintf("  prior: simulating configs before the first trial %s %.0f%% · %d/~%d · %s",
		bar(s.fraction(), min(30, max(10, width/5))), s.fraction()*100, s.calls, s.total, now.Sub(s.started).Round(time.Second))
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
	call func()
}

func (w watchedPrior) Predict(c space.Config) ([]float64, bool) {
	defer w.call()
	return w.Prior.Predict(c)
}

// watchedScreener keeps the prior's cheaper screening (search.Screener).
type watchedScreener struct {
	watchedPrior
	screen search.Screener
}

func (w watchedScreener) Screen(c space.Config) ([]float64, bool) {
	defer w.call()
	return w.screen.Screen(c)
}

// watchPrior wraps the study's prior (nil stays nil) so the view can say
// what the start is doing.
func watchPrior(p search.Prior, call func()) search.Prior {
	if p == nil {
		return nil
	}
	w := watchedPrior{Prior: p, call: call}
	if sc, ok := p.(search.Screener); ok {
		return watchedScreener{watchedPrior: w, screen: sc}
	}
	return w
}
