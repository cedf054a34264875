package studies

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/search/samplers"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/store"
)

func TestPaceWidth(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		name          string
		trials        []time.Duration
		work          []time.Duration // the loop's work, one trial started each time
		workers, want int
	}{
		{"nothing timed: every worker", nil, nil, 4, 4},
		{"no trial timed yet", nil, []time.Duration{10 * ms}, 4, 4},
		{"no pick timed yet", []time.Duration{ms}, nil, 4, 4},
		{"a trial cheaper than a pick: one at a time", []time.Duration{ms}, []time.Duration{10 * ms}, 4, 1},
		{"a trial as long as a pick: two", []time.Duration{10 * ms}, []time.Duration{10 * ms}, 4, 2},
		{"a trial of 2.5 picks: three", []time.Duration{25 * ms}, []time.Duration{10 * ms}, 4, 3},
		{"a trial of many picks: every worker", []time.Duration{time.Minute}, []time.Duration{10 * ms}, 4, 4},
		{"a loop that takes no time: every worker", []time.Duration{ms}, []time.Duration{0}, 4, 4},
		{"one worker stays one", []time.Duration{time.Minute}, []time.Duration{ms}, 1, 1},
		// The averages follow the study: picks that grow past the trials
		// (the sampler's ask grows with the study) narrow it.
		{"picks grown dearer", []time.Duration{20 * ms}, []time.Duration{ms, 10 * ms, 40 * ms, 40 * ms, 40 * ms, 40 * ms, 40 * ms}, 4, 1},
	} {
		var p pace
		for _, d := range c.trials {
			p.trialTook(d)
		}
		for _, d := range c.work {
			p.worked(d, 1)
		}
		if got := p.width(c.workers); got != c.want {
			t.Errorf("%s: width %d of %d workers (trial %s, pick %s), want %d", c.name, got, c.workers, p.trial, p.pick, c.want)
		}
	}
}

// Work that started no trial (waiting on the baseline, a refused claim)
// counts toward the next trial started, not as a free pick.
func TestPaceCountsWorkTowardTheNextStart(t *testing.T) {
	var p pace
	p.worked(30*time.Millisecond, 0)
	p.worked(10*time.Millisecond, 2)
	if p.pick != 20*time.Millisecond {
		t.Errorf("pick %s, want 20ms: 40ms of work for two trials", p.pick)
	}
}

// sleepyAsk is a sampler whose ask takes per (the bubble's fake time)
// for every config asked.
type sleepyAsk struct {
	search.Sampler
	per time.Duration
}

func (s *sleepyAsk) Ask(ctx context.Context, n int, pending []space.Config) ([]space.Config, error) {
	time.Sleep(time.Duration(n) * s.per)
	return s.Sampler.Ask(ctx, n, pending)
}

// runPaced runs a 4-worker study of nTrials whose sampler takes ask per
// config and whose trials take took, and returns how many trials were
// running (started, not yet finished) as each trial started.
func runPaced(t *testing.T, nTrials int, ask, took time.Duration) []int {
	t.Helper()
	sp := studySpace(t, nTrials, "")
	st, dir := openStore(t)
	inner, err := samplers.New(context.Background(), "random", sp, 1, nil, zerolog.Nop(), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var running []int
	inFlight := 0
	onEvent := func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case TrialStarted:
			running = append(running, inFlight)
			inFlight++
		case TrialFinished:
			inFlight--
		}
	}
	l := &loop{RunOptions: RunOptions{Space: sp, Store: st, Runner: &sleepyRunner{took: took}, Dir: dir, Repeat: 1, Now: time.Now, OnEvent: onEvent,
		Log: zerolog.Nop(), Workers: 4, WorkerID: "w", Lease: time.Minute}, sampler: &sleepyAsk{Sampler: inner, per: ask}, leased: true, started: time.Now()}
	if err := l.run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := store.CountDone(l.trials); got != nTrials {
		t.Fatalf("%d trials done, want %d", got, nTrials)
	}
	return running
}

// Trials cheaper than the loop's own pick (a simulated trial against a
// sampler whose ask grows with the study) gain nothing from running
// together and cost the sampler its sequential course: once both are
// timed, the loop starts one trial at a time. Trials dearer than a pick
// keep every worker busy.
func TestWorkersRunOneTrialAtATimeWhenTrialsAreCheaperThanPicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		running := runPaced(t, 16, 10*time.Millisecond, time.Millisecond)
		// The baseline, then the first fill of all four workers (nothing
		// timed yet), then one at a time.
		for i, n := range running[5:] {
			if n != 0 {
				t.Fatalf("trial %d started with %d others running (at each start: %v), want one at a time once a trial is timed cheaper than a pick", i+6, n, running)
			}
		}
	})
	synctest.Test(t, func(t *testing.T) {
		running := runPaced(t, 16, 10*time.Millisecond, time.Second)
		most := 0
		for _, n := range running {
			most = max(most, n)
		}
		if most != 3 {
			t.Fatalf("at most %d others running as a trial started (%v), want 3: trials dearer than picks keep every worker busy", most, running)
		}
	})
}
