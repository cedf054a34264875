package view

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	"github.com/servetune/servetune/studies/store"
)

// fakeClock is the view's clock, moved by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time      { return c.t }
func (c *fakeClock) add(d time.Duration) { c.t = c.t.Add(d) }
func startEv(n, done int) studies.Event {
	return studies.Event{Kind: studies.TrialStarted, Trial: store.Trial{Number: n}, Done: done, Total: 5}
}
func finishEv(n, done int) studies.Event {
	return studies.Event{Kind: studies.TrialFinished, Trial: store.Trial{Number: n, State: store.Complete}, Done: done, Total: 5}
}
func phaseEv(n int, p objective.Phase) studies.Event {
	return studies.Event{Kind: studies.TrialPhase, Trial: store.Trial{Number: n}, Phase: p, Total: 5}
}

// The study's ETA is the time between finishes times trials left: the
// prior's 50 s start-up is not a trial's, but the proposal and start-up
// between one trial's end and the next's are (issue 50: counting trial
// durations only read ten times too low).
func TestETACountsTheTimeBetweenFinishes(t *testing.T) {
	sp := progressSpace(t)
	c := &fakeClock{time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	s := newRunStats(sp, nil, 0, c.now())
	c.add(50 * time.Second) // screening
	s.observe(startEv(1, 0), c.now())
	if _, ok := s.eta(c.now()); ok {
		t.Error("an ETA before any trial finished")
	}
	c.add(10 * time.Second)
	s.observe(finishEv(1, 1), c.now())
	if eta, _ := s.eta(c.now()); eta != 40*time.Second {
		t.Errorf("4 trials left of 10 s each: ETA %v, want 40s (not 4 × 60 s)", eta)
	}
	c.add(30 * time.Second) // the next proposal takes 30 s
	s.observe(startEv(2, 1), c.now())
	c.add(10 * time.Second)
	s.observe(finishEv(2, 2), c.now())
	// 50 s from the first start to the second finish: 25 s per trial.
	if eta, _ := s.eta(c.now()); eta != 75*time.Second {
		t.Errorf("3 trials left at 25 s: ETA %v, want 75s (trial time alone says 30s)", eta)
	}
	if head := s.block(c.now())[0]; !strings.Contains(head, "ETA 1m15s") {
		t.Errorf("head %q lacks the ETA", head)
	}
}

func TestScreeningLineHasABarAndItsOwnETA(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := screening{total: 600}
	for range 100 {
		s.call(t0, false)
	}
	for range 10 { // full predictions weigh predictCost screenings each
		s.call(t0, true)
	}
	got := s.line(t0.Add(10 * time.Second))
	want := "  prior: simulating configs ▕██████░░░░░░░░░░░░░░▏ 30% (110) · 10s · ETA ~23s"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if len([]rune(got)) > 79 {
		t.Errorf("%d columns: wider than a terminal", len([]rune(got)))
	}
	for range 600 {
		s.call(t0, false)
	}
	if f := s.fraction(); f != 0.99 {
		t.Errorf("past its estimated total the bar shows %v, want 0.99 until the first trial", f)
	}
	if bar(0, 4) != "▕░░░░▏" || bar(1, 4) != "▕████▏" {
		t.Errorf("bar ends: %q %q", bar(0, 4), bar(1, 4))
	}
}

// The start-up's estimated work: screening priors screen cheaply and
// predict the best in full; others predict everything in full.
func TestPriorStartWork(t *testing.T) {
	sp := progressSpace(t) // two objectives
	if got := priorStartWork(sp, true); got != 602+predictCost*56 {
		t.Errorf("screening prior: %v", got)
	}
	if got := priorStartWork(sp, false); got != predictCost*(602+56) {
		t.Errorf("prior without screening: %v", got)
	}
}

// Piped output: the prior's start is announced and then logged every
// 30 s, as is a running trial with its requests; nothing more often.
func TestPipedOutputLogsProgressPeriodically(t *testing.T) {
	sp := progressSpace(t)
	var logs bytes.Buffer
	c := &fakeClock{time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	p := New(sp, nil, Options{Out: &bytes.Buffer{}, Log: zerolog.New(&logs), Now: c.now})
	p.stats.screen.total = 600
	p.priorCall(false)
	c.add(20 * time.Second)
	p.tick()
	if n := strings.Count(logs.String(), "\n"); n != 1 || !strings.Contains(logs.String(), "before the first trial") {
		t.Fatalf("after 20 s of screening, want just the announcement:\n%s", logs.String())
	}
	for range 99 {
		p.priorCall(false)
	}
	c.add(11 * time.Second)
	p.tick()
	if !strings.Contains(logs.String(), `"predictions":100`) || !strings.Contains(logs.String(), `"eta_about"`) {
		t.Errorf("no screening progress line at 31 s:\n%s", logs.String())
	}
	p.Event(startEv(1, 0))
	if !strings.Contains(logs.String(), "the simulator prior is ready") {
		t.Errorf("the first trial does not say the prior is ready:\n%s", logs.String())
	}
	p.Event(phaseEv(1, objective.Benchmarking))
	p.requestsDone(bench.Progress{Done: 37, Total: 110})
	logs.Reset()
	c.add(29 * time.Second)
	p.tick()
	if logs.Len() != 0 {
		t.Errorf("a progress line 29 s after the last line:\n%s", logs.String())
	}
	c.add(time.Second)
	p.tick()
	if !strings.Contains(logs.String(), `"phase":"benchmarking 37/110 requests"`) || !strings.Contains(logs.String(), `"elapsed":"30s"`) {
		t.Errorf("periodic trial line:\n%s", logs.String())
	}
	p.priorCall(true) // the prior's work between trials is not the start-up
	if p.stats.screen.calls != 100 {
		t.Errorf("calls after the first trial counted as start-up: %d", p.stats.screen.calls)
	}
}

// The live block says how many requests the benchmark has done, when the
// runner reports them, and the prior's start while it runs.
func TestLiveBlockShowsRequestsAndThePriorsStart(t *testing.T) {
	sp := progressSpace(t)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := newRunStats(sp, nil, 0, t0)
	s.screen.call(t0, false)
	if lines := s.block(t0.Add(time.Second)); len(lines) != 2 || !strings.HasPrefix(lines[1], "  prior: simulating configs ▕") {
		t.Errorf("block while screening:\n%s", strings.Join(lines, "\n"))
	}
	run := store.Trial{Number: 1, Config: space.Config{"engine": "vllm"}}
	s.observe(studies.Event{Kind: studies.TrialStarted, Trial: run, Total: 5}, t0.Add(2*time.Second))
	s.observe(studies.Event{Kind: studies.TrialPhase, Trial: run, Phase: objective.Benchmarking, Total: 5}, t0.Add(3*time.Second))
	s.requests(bench.Progress{Done: 12, Total: 40})
	lines := s.block(t0.Add(102 * time.Second))
	if len(lines) != 2 || lines[1] != "  trial 1: benchmarking 12/40 requests (1m40s) · engine=vllm" {
		t.Errorf("block:\n%s", strings.Join(lines, "\n"))
	}
}

type fakeScreener struct{ predicts, screens int }

func (f *fakeScreener) Predict(context.Context, space.Config) ([]float64, bool) {
	f.predicts++
	return []float64{1}, true
}
func (f *fakeScreener) Screen(context.Context, space.Config) ([]float64, bool) {
	f.screens++
	return []float64{2}, true
}

// Watching the prior keeps what it is (a Screener stays one) and counts
// both kinds of prediction; no prior stays none.
func TestWatchPrior(t *testing.T) {
	if p, _ := watchPrior(nil, func(bool) {}); p != nil {
		t.Error("a study without a prior got one")
	}
	var calls []bool
	inner := &fakeScreener{}
	w, screens := watchPrior(inner, func(full bool) { calls = append(calls, full) })
	sc, ok := w.(search.Screener)
	if !ok || !screens {
		t.Fatal("the watched prior is no longer a Screener: the prior would simulate every screening in full")
	}
	if v, _ := sc.Screen(context.Background(), nil); v[0] != 2 {
		t.Error("Screen does not reach the prior's Screen")
	}
	sc.Predict(context.Background(), nil)
	if len(calls) != 2 || calls[0] || !calls[1] || inner.screens != 1 || inner.predicts != 1 {
		t.Errorf("calls %v, inner %+v", calls, inner)
	}
	if _, screens := watchPrior(predictOnly{}, func(bool) {}); screens {
		t.Error("a prior without Screen said it screens")
	}
}

type predictOnly struct{}

func (predictOnly) Predict(context.Context, space.Config) ([]float64, bool) { return nil, false }

// Under 10 s the study's ETA is written to the tenth, in the finished
// trial's log line and the live head: whole seconds read 0s with a trial
// left (issue 50).
func TestShortETAHasTenths(t *testing.T) {
	sp := progressSpace(t)
	var logs bytes.Buffer
	c := &fakeClock{time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	p := New(sp, nil, Options{Out: &bytes.Buffer{}, Log: zerolog.New(&logs), Now: c.now})
	p.Event(startEv(1, 0))
	for n := 1; n <= 4; n++ {
		c.add(1300 * time.Millisecond)
		p.Event(finishEv(n, n))
		if n < 4 {
			p.Event(startEv(n+1, n))
		}
	}
	// 1.3 s per trial, one left.
	if !strings.Contains(logs.String(), `"study_eta":"1.3s"`) {
		t.Errorf("no sub-second study_eta with one trial left:\n%s", logs.String())
	}
	if head := p.stats.block(c.now().Add(1250 * time.Millisecond))[0]; !strings.Contains(head, "ETA 0.1s") {
		t.Errorf("head %q: want the last trial's 0.05 s written as 0.1s, never 0s", head)
	}
}
