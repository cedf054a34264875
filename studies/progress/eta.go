package progress

import "time"

// ETA estimates a study's remaining wall time from the measured time per
// trial: the interval between finishes, which holds everything a trial
// costs the study — the sampler's proposal, the prior's predictions, the
// engine's start-up, the benchmark, the teardown and the bookkeeping —
// where a trial's own duration holds only part of it (issue 50: the
// quickstart's ETA counted trial durations and read ten times too low).
// With several workers the finishes come that much more often, so the
// span per finish is already the study's time per trial, shared among
// them.
//
// It follows the recent trials: the time per trial is the mean interval
// over the last k finishes, k = max(8, finished/3) (at most 200), less the
// shortest and the longest of them, and the run's mean (from the first
// start) until more than k finished. Later trials cost more than earlier
// ones (the sampler's proposals grow with the history), so the run's mean
// lagged and read 30–48% low through the middle of the quickstart; a
// window of a third of the run follows that trend yet averages enough
// intervals that one slow or fast finish does not swing it, which a
// window of the last few did on a loaded machine. Trimming the extremes
// keeps a run of short trials (pruned, failing fast) in a process-runner
// study from pulling it low (replayed traces in eta_replay_test.go,
// figures in docs/benchmarks.md, "Issue 50: the ETA, second pass" and
// "third pass").
//
// The clock starts at the run's first trial start, so a start-up before
// it (the prior ranking configs) and the time between runs of a resumed
// study count in no trial's time. The zero value is ready to use.
type ETA struct {
	started bool
	// first is the run's first trial start.
	first time.Time
	// finishes are the finishes since first, in order: the window's far
	// end is looked up, so a trial costs the same however many ran.
	finishes []time.Time
}

// Started records a trial's start; only the first one matters: it starts
// the clock.
func (e *ETA) Started(now time.Time) {
	if !e.started {
		e.started, e.first = true, now
	}
}

// Finished records a trial that counts toward the study's trials (a
// config a rule refused never ran and does not).
func (e *ETA) Finished(now time.Time) {
	if !e.started {
		e.Started(now) // a finish without its start: this run did not see it begin
		return
	}
	e.finishes = append(e.finishes, now)
}

// window is how many of n finishes the time per trial averages: a third
// of the run, at least 8 so that trimming two leaves six, at most
// maxWindow so that a finish costs the same however many ran.
func window(n int) int { return min(max(8, n/3), maxWindow) }

const maxWindow = 200

// PerTrial is the measured wall time per trial over the recent finishes,
// false before a trial finished.
func (e *ETA) PerTrial() (time.Duration, bool) {
	n := len(e.finishes)
	if n == 0 {
		return 0, false
	}
	last, k := e.finishes[n-1], window(n)
	if n <= k {
		return max(last.Sub(e.first), 0) / time.Duration(n), true
	}
	return trimmedMean(e.finishes[n-1-k:]), true
}

// trimmedMean is the mean interval between the finishes fs, leaving out
// the shortest and the longest: a pruned trial's few seconds, or a
// start-up that downloads the model, then moves the estimate by nothing
// rather than by its share of the window.
func trimmedMean(fs []time.Time) time.Duration {
	k := len(fs) - 1
	lo, hi := max(fs[1].Sub(fs[0]), 0), max(fs[1].Sub(fs[0]), 0)
	for i := 2; i <= k; i++ {
		d := max(fs[i].Sub(fs[i-1]), 0)
		lo, hi = min(lo, d), max(hi, d)
	}
	span := max(fs[k].Sub(fs[0]), 0)
	return (span - lo - hi) / time.Duration(k-2)
}

// last is the latest finish, the first start until one.
func (e *ETA) last() time.Time {
	if n := len(e.finishes); n > 0 {
		return e.finishes[n-1]
	}
	return e.first
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
	spent := max(now.Sub(e.last()), 0)
	return per*time.Duration(left-1) + max(per-spent, 0), true
}
