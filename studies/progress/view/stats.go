package view

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	studyprogress "github.com/servetune/servetune/studies/progress"
	"github.com/servetune/servetune/studies/store"
)

// runStats is what the live block shows, kept from the study's events
// (and the trials a resumed study had already finished).
type runStats struct {
	sp          *space.Space
	unit        string
	budgetHours float64
	started     time.Time
	done, total int
	finished    int // in this run
	// clock is the ETA: the measured time per trial, proposals and
	// start-ups included (studies/progress).
	clock  studyprogress.ETA
	screen screening
	hours  float64
	base   []float64
	// baseTrial is the finished baseline, against which guards are judged.
	baseTrial *store.Trial
	best      []bestValue
	// running are the trials in flight, by number: one, or one per busy
	// worker of a parallel study.
	running map[int]*current
}

type bestValue struct {
	value float64
	trial int
}

type current struct {
	trial   int
	summary string
	phase   objective.Phase
	pct     float64
	since   time.Time
	// requests are the benchmark's requests done of total, when the
	// runner reports them (one trial at a time).
	requests, ofRequests int
}

func newRunStats(sp *space.Space, prior []store.Trial, budget time.Duration, now time.Time) runStats {
	s := runStats{sp: sp, unit: hoursUnit(sp), budgetHours: budget.Hours(),
		started: now, total: sp.Study.NTrials, best: make([]bestValue, len(sp.Objectives)), running: map[int]*current{}}
	for i := range s.best {
		s.best[i].value = math.NaN()
	}
	for _, t := range prior {
		s.record(t)
	}
	return s
}

// record counts a finished trial: device time, the baseline, the best
// feasible value of each objective.
func (s *runStats) record(t store.Trial) {
	s.hours += t.GPUSeconds / 3600
	if t.Origin == "baseline" && t.State == store.Complete && s.baseTrial == nil {
		s.baseTrial = &t
	}
	if t.State != store.Complete || studies.Violation(s.sp, t, s.baseTrial) > 0 {
		return
	}
	vs := studies.Values(s.sp, t)
	if t.Origin == "baseline" && s.base == nil {
		s.base = vs
	}
	for i, o := range s.sp.Objectives {
		b := &s.best[i]
		if !math.IsNaN(vs[i]) && (math.IsNaN(b.value) || (o.Direction == space.Minimize) == (vs[i] < b.value)) {
			*b = bestValue{vs[i], t.Number}
		}
	}
}

func (s *runStats) observe(ev studies.Event, now time.Time) {
	s.done, s.total = ev.Done, ev.Total
	switch ev.Kind {
	case studies.TrialStarted:
		s.running[ev.Trial.Number] = &current{trial: ev.Trial.Number, summary: ev.Trial.Config.Summary(), phase: objective.Launching, since: now}
		s.clock.Started(now)
		s.screen.over = true
	case studies.TrialPhase:
		if c := s.running[ev.Trial.Number]; c != nil {
			c.phase, c.pct = ev.Phase, ev.Progress
		}
	case studies.TrialFinished:
		s.record(ev.Trial)
		delete(s.running, ev.Trial.Number)
		if !ev.Trial.BrokeRule() {
			s.finished++
			s.clock.Finished(now)
		}
	}
}

// eta is the time the study still needs: the measured time per trial
// (the interval between finishes) for each trial left.
func (s runStats) eta(now time.Time) (time.Duration, bool) {
	return s.clock.Remaining(now, s.total-s.done)
}

// requests records the benchmark's request count on the one running
// trial; with several running it cannot say whose it is.
func (s *runStats) requests(p bench.Progress) {
	if len(s.running) != 1 {
		return
	}
	for _, c := range s.running {
		c.requests, c.ofRequests = p.Done, p.Total
	}
}

// block is the live view: progress and time, best so far, the trial
// running now.
func (s runStats) block(now time.Time) []string {
	elapsed := now.Sub(s.started).Round(time.Second)
	head := fmt.Sprintf("servetune %s · trial %d of %d · %s %s", s.sp.Study.Name, min(s.done+1, s.total), s.total, fmtRounded(s.hours), s.unit)
	if s.budgetHours > 0 {
		head = fmt.Sprintf("servetune %s · trial %d of %d · %s / %s %s", s.sp.Study.Name, min(s.done+1, s.total), s.total, fmtRounded(s.hours), fmtRounded(s.budgetHours), s.unit)
	}
	if n := len(s.running); n > 1 {
		head += fmt.Sprintf(" · %d running", n)
	}
	head += " · elapsed " + elapsed.String()
	if eta, ok := s.eta(now); ok {
		head += " · ETA " + studyprogress.Format(eta)
	}
	var bests []string
	for i, o := range s.sp.Objectives {
		if b := s.best[i]; !math.IsNaN(b.value) {
			bests = append(bests, fmt.Sprintf("%s %s (trial %d)", o.Metric, fmtRounded(b.value), b.trial))
		}
	}
	lines := []string{head}
	if s.screen.active() {
		lines = append(lines, s.screen.line(now))
	}
	if len(bests) > 0 {
		lines = append(lines, "  best: "+strings.Join(bests, " · "))
	}
	for _, n := range slices.Sorted(maps.Keys(s.running)) {
		c := s.running[n]
		lines = append(lines, fmt.Sprintf("  trial %d: %s (%s) · %s", c.trial, c.describe(), now.Sub(c.since).Round(time.Second), c.summary))
	}
	return lines
}

// describe is the trial's phase with how far its benchmark has come:
// requests done of total when known, else the share of checkpoints.
func (c current) describe() string {
	phase := string(c.phase)
	switch {
	case c.phase != objective.Benchmarking:
	case c.ofRequests > 0:
		phase += fmt.Sprintf(" %d/%d requests", c.requests, c.ofRequests)
	case c.pct > 0:
		phase += fmt.Sprintf(" %.0f%%", c.pct*100)
	}
	return phase
}

// finishedLine is the one short line a finished trial leaves on the
// terminal: its state, objectives with ± vs the baseline, why it did not
// complete.
func finishedLine(sp *space.Space, t store.Trial, base []float64, baseTrial *store.Trial) string {
	head := fmt.Sprintf("trial %d %s", t.Number, t.State)
	switch {
	case t.BrokeRule():
		return fmt.Sprintf("trial %d skipped: %s", t.Number, t.Reason)
	case t.ReusedFrom != 0:
		head += fmt.Sprintf(" (reuses trial %d)", t.ReusedFrom)
	case t.Failure != nil:
		return head + ": " + string(t.Failure.Class) + ": " + t.Failure.Message
	case t.State != store.Complete:
		return head + ": " + t.Reason
	}
	parts := []string{head}
	for i, o := range sp.Objectives {
		v := studies.Values(sp, t)[i]
		s := o.Metric + " " + fmtRounded(v)
		if pct, ok := vsBaseline(v, base, i); ok && t.Origin != "baseline" {
			s += fmt.Sprintf(" (%+.1f%%)", pct)
		}
		parts = append(parts, s)
	}
	if studies.Violation(sp, t, baseTrial) > 0 {
		parts = append(parts, "SLO missed")
	}
	return strings.Join(parts, "  ")
}

// hoursUnit is the live view's unit of device time, "simulated" on the
// simulator: its hours were never spent.
func hoursUnit(sp *space.Space) string {
	u := studies.HoursUnit(studies.TargetDevice(sp.Target, sp.Engines()))
	if sp.Target.Runner == "sim" {
		return "simulated " + u
	}
	return u
}
