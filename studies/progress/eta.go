package progress

import "time"

// ETA estimates a study's remaining wall time from the measured time per
// trial: the time from the run's first trial start to its latest finish,
// over the trials finished since. That span holds everything a trial
// costs the study — the sampler's proposal, the prior's predictions, the
// engine's start-up, the benchmark, the teardown and the bookkeeping —
// where a trial's own duration holds only part of it (issue 50: the
// quickstart's ETA counted trial durations and read ten times too low).
// With several workers the finishes come that much more often, so the
// span per finish is already the study's time per trial, shared among
// them.
//
// It is the mean over the run, not a moving average: on the quickstart
// the interval between finishes swings from 0.2 s to 4.5 s with the
// machine's load, and replayed on three traces the run's mean kept 50,
// 34 and 22 of 55 estimates from trial 5 on within ±30%, where weighted
// averages of recent intervals kept 17 to 42 (docs/benchmarks.md,
// "Issue 50").
//
// The clock starts at the run's first trial start, so a start-up before
// it (the prior ranking configs) and the time between runs of a resumed
// study count in no trial's time. The zero value is ready to use.
type ETA struct {
	started bool
	// first is the run's first trial start, last its latest finish (the
	// first start until one).
	first, last time.Time
	// n is the trials finished since first.
	n int
}

// Started records a trial's start; only the first one matters: it starts
// the clock.
func (e *ETA) Started(now time.Time) {
	if !e.started {
		e.started, e.first, e.last = true, now, now
	}
}

// Finished records a trial that counts toward the study's trials (a
// config a rule refused never ran and does not).
func (e *ETA) Finished(now time.Time) {
	if !e.started {
		e.Started(now) // a finish without its start: this run did not see it begin
		return
	}
	e.last = now
	e.n++
}

// PerTrial is the measured wall time per trial, false before a trial
// finished.
func (e *ETA) PerTrial() (time.Duration, bool) {
	if e.n == 0 {
		return 0, false
	}
	return max(e.last.Sub(e.first), 0) / time.Duration(e.n), true
}

// Remaining is the study's remaining time with left trials to finish: the
// time per trial for each, less what the next one has already spent since
// the last finish (never below the time of the trials after it), false
// when nothing was measured yet or nothing is left.
func (e *ETA) Remaining(now time.Time, left int) (time.Duration, bool) {
	per, ok := e.PerTrial()
	if !ok || left <= 0 {
		return 0, false
	}
	spent := max(now.Sub(e.last), 0)
	return per*time.Duration(left-1) + max(per-spent, 0), true
}
