package progress

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)

// at is t0 plus s seconds.
func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// The ETA counts the whole time per trial — proposal, start-up, benchmark,
// teardown — as the interval between finishes, not a trial's own time.
func TestETAIsTheIntervalBetweenFinishes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		starts   []float64 // seconds after t0 of trial starts fed before each finish
		finishes []float64
		now      float64
		left     int
		want     time.Duration
		ok       bool
	}{
		{name: "nothing finished", starts: []float64{50}, now: 60, left: 10},
		{name: "nothing left", starts: []float64{0}, finishes: []float64{4}, now: 4, left: 0},
		// The prior's 50 s before the first start is not a trial's time.
		{name: "first interval from the first start", starts: []float64{50}, finishes: []float64{54}, now: 54, left: 10, want: 40 * time.Second, ok: true},
		// Trials of 0.5 s each proposed in 3.5 s: 4 s per trial, not 0.5.
		{name: "proposal time counts", starts: []float64{0, 4.5, 8.5}, finishes: []float64{4, 8, 12}, now: 12, left: 39, want: 156 * time.Second, ok: true},
		// 1 s into the next trial of 4 s: 3 s of it and 4 s for each after.
		{name: "time spent on the next", starts: []float64{0, 4.5}, finishes: []float64{4, 8}, now: 9, left: 3, want: 11 * time.Second, ok: true},
		// A trial running longer than usual still leaves the ones after it.
		{name: "overdue trial", starts: []float64{0}, finishes: []float64{4}, now: 20, left: 3, want: 8 * time.Second, ok: true},
		// Two workers finish twice as often: the interval is per study.
		{name: "two workers", starts: []float64{0, 0}, finishes: []float64{4, 4, 6, 8, 10}, now: 10, left: 10, ok: true,
			want: 20 * time.Second},
	} {
		var e ETA
		for _, s := range tc.starts {
			e.Started(at(s))
		}
		for _, f := range tc.finishes {
			e.Finished(at(f))
		}
		got, ok := e.Remaining(at(tc.now), tc.left)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: Remaining = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// A slow trial (a start-up that downloads the model) does not move the
// estimate: the window leaves out its longest interval, so one 40 s trial
// after nine 4 s ones still reads 4 s per trial, then and later, where
// the window's plain mean read 11.2 s.
func TestETAOneSlowTrialIsTrimmed(t *testing.T) {
	var e ETA
	e.Started(t0)
	now := t0
	for i := range 15 {
		d := 4 * time.Second
		if i == 9 {
			d = 40 * time.Second
		}
		now = now.Add(d)
		e.Finished(now)
		if i == 9 {
			if per, _ := e.PerTrial(); per != 4*time.Second {
				t.Errorf("per trial %v after the slow one, want 4s", per)
			}
		}
	}
	if per, _ := e.PerTrial(); per != 4*time.Second {
		t.Errorf("per trial %v five trials on, want 4s", per)
	}
}

// The time per trial follows the recent finishes: over the whole run up
// to 8 finishes, then the last max(8, n/3) less their extremes, so a
// study whose trials grow slower is measured at its current pace.
func TestETAFollowsTheRecentTrials(t *testing.T) {
	for _, tc := range []struct {
		name string
		fast int // 1 s trials first
		slow int // then 3 s trials
		want time.Duration
	}{
		{name: "under a window: the run's mean", fast: 3, slow: 2, want: 1800 * time.Millisecond},
		{name: "nine slow of ten: the last eight", fast: 1, slow: 9, want: 3 * time.Second},
		// 30 finishes: the window is 10, 5 fast and 5 slow, one of each
		// trimmed.
		{name: "a third of the run", fast: 25, slow: 5, want: 2 * time.Second},
		{name: "steady", fast: 40, want: time.Second},
	} {
		var e ETA
		e.Started(t0)
		now := t0
		for i := range tc.fast + tc.slow {
			now = now.Add(time.Second)
			if i >= tc.fast {
				now = now.Add(2 * time.Second)
			}
			e.Finished(now)
		}
		if per, _ := e.PerTrial(); per != tc.want {
			t.Errorf("%s: per trial %v, want %v", tc.name, per, tc.want)
		}
	}
}

// A finish this run did not see start (a resumed trial) starts the clock
// and measures nothing.
func TestETAFinishWithoutStart(t *testing.T) {
	var e ETA
	e.Finished(at(100))
	if _, ok := e.Remaining(at(101), 5); ok {
		t.Error("an ETA from no interval")
	}
	e.Finished(at(104))
	if got, _ := e.Remaining(at(104), 5); got != 20*time.Second {
		t.Errorf("ETA %v, want 5 × 4s", got)
	}
}
