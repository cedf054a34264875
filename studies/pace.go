package studies

import "time"

// pace follows how long the loop's goroutine works per trial it starts
// (the pick, the sampler's ask, the claim, the result's write, teaching
// the sampler) against how long a trial takes on its worker, to decide
// how many trials are worth running at once.
//
// Workers only measure; everything else is the loop's, one trial after
// another. While a trial takes longer than the loop's own work for one,
// more workers keep the loop from waiting (the trials overlap each other
// and the loop's picks); once a trial is cheaper than its pick (a
// simulated trial against a sampler whose ask grows with the study), a
// second trial in flight can only overlap the first one's few
// milliseconds, and costs more than that: the sampler is asked around
// trials still running (the constant liar), so it explores where the
// sequential study would have pruned, and the trials compete with the
// loop for the same cores. The loop then starts one trial at a time
// until trials are dearer than picks again.
//
// Both are moving averages, so the cost of tracking them is the same at
// the 10th trial and the 10,000th.
type pace struct {
	trial time.Duration // a trial on its worker, averaged
	pick  time.Duration // the loop's work per trial started, averaged
	// timed says trial and pick have each had a sample.
	trialTimed, pickTimed bool
	// busy and starts are the loop's work and the trials it started
	// since pick was last updated.
	busy   time.Duration
	starts int
}

// paceWeight is the weight of the newest sample in each average: the
// sampler's ask grows slowly with the study, a trial's cost moves with
// the configs.
const paceWeight = 0.25

func average(avg *time.Duration, timed *bool, sample time.Duration) {
	if !*timed {
		*avg, *timed = sample, true
		return
	}
	*avg += time.Duration(paceWeight * float64(sample-*avg))
}

// trialTook records a trial's time on its worker.
func (p *pace) trialTook(d time.Duration) {
	average(&p.trial, &p.trialTimed, max(d, 0))
}

// worked records the loop's work between two waits, in which it started
// started trials; work that started none counts toward the next start.
func (p *pace) worked(d time.Duration, started int) {
	p.busy += max(d, 0)
	p.starts += started
	if p.starts == 0 {
		return
	}
	average(&p.pick, &p.pickTimed, p.busy/time.Duration(p.starts))
	p.busy, p.starts = 0, 0
}

// width is how many trials to keep in flight, of workers: all of them
// until a trial and a pick have been timed (or while the loop's work
// takes no time at all, as on a test's fake clock), one while a trial is
// cheaper than the loop's pick, else enough to keep the loop busy (a
// trial takes as long as trial/pick picks, plus the one being collected).
func (p *pace) width(workers int) int {
	if workers <= 1 || !p.trialTimed || !p.pickTimed || p.pick <= 0 {
		return max(workers, 1)
	}
	if p.trial < p.pick {
		return 1
	}
	return min(workers, int(p.trial/p.pick)+1)
}
