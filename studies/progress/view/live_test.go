package view

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/studies/store"
)

// On a terminal each event redraws the block in place: the old block is
// erased with the cursor controls, a finished trial's line stays above
// the new block, lines are cut to the terminal's width, and Close erases
// the block so the summary follows the finished lines.
func TestLiveRedrawAndClose(t *testing.T) {
	sp := progressSpace(t)
	var out, logs bytes.Buffer
	c := &fakeClock{time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	v := New(sp, nil, Options{Out: &out, Log: zerolog.New(&logs), Live: true, Width: 40, Now: c.now})
	v.Event(startEv(1, 0))
	first := out.String()
	if strings.Contains(first, "\x1b[") || !strings.HasPrefix(first, "servetune quickstart · trial 1 of 5") {
		t.Fatalf("first draw: %q", first)
	}
	out.Reset()
	c.add(10 * time.Second)
	v.Event(finishEv(1, 1))
	got := out.String()
	if !strings.HasPrefix(got, "\x1b[2F\x1b[J") {
		t.Errorf("redraw does not erase the two lines drawn: %q", got)
	}
	if !strings.Contains(got, "trial 1 complete") {
		t.Errorf("no finished line: %q", got)
	}
	for _, l := range strings.Split(strings.TrimSuffix(got[len("\x1b[2F\x1b[J"):], "\n"), "\n") {
		if n := len([]rune(l)); n > 39 {
			t.Errorf("line of %d columns on a 40-column terminal: %q", n, l)
		}
	}
	out.Reset()
	v.Close()
	if out.String() != "\x1b[F\x1b[J" {
		t.Errorf("close: %q, want the one-line block erased", out.String())
	}
	if logs.Len() != 0 {
		t.Errorf("the live view also logged:\n%s", logs.String())
	}
}

// Piped output gets one log line per started and finished trial with
// rounded values, and no block.
func TestPipedTrialLines(t *testing.T) {
	sp := progressSpace(t)
	var out, logs bytes.Buffer
	c := &fakeClock{time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	v := New(sp, nil, Options{Out: &out, Log: zerolog.New(&logs), Now: c.now})
	v.Event(startEv(1, 0))
	c.add(time.Minute)
	fin := finishEv(1, 1)
	fin.Trial.Origin = "baseline"
	fin.Trial.GPUSeconds = 1800
	fin.Trial.Metrics = map[string]map[string]float64{"balanced": {"total_tps": 5040.44, "mean_tpot_ms": 85.583}}
	v.Event(fin)
	if out.Len() != 0 {
		t.Errorf("piped output drew: %q", out.String())
	}
	for _, want := range []string{`"message":"trial started"`, `"message":"trial finished"`, `"total_tps":5040`, `"mean_tpot_ms":85.6`, `"gpu_h":0.5`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), "vs_baseline") {
		t.Errorf("the baseline is compared with itself:\n%s", logs.String())
	}
}

// The meter passes the runner's progress to whoever listens, and to
// nobody before or after.
func TestMeter(t *testing.T) {
	var m Meter
	m.Report(bench.Progress{Done: 1, Total: 2}) // nobody listens: dropped
	var got []bench.Progress
	m.Listen(func(p bench.Progress) { got = append(got, p) })
	m.Report(bench.Progress{Done: 2, Total: 4})
	m.Listen(nil)
	m.Report(bench.Progress{Done: 3, Total: 4})
	if len(got) != 1 || got[0].Done != 2 {
		t.Errorf("listened to %+v", got)
	}
	var none *Meter
	none.Listen(func(bench.Progress) { t.Error("a nil meter reported") })
}

// A view started with a meter shows the benchmark's requests of its one
// running trial, and stops listening when closed.
func TestStartListensToTheMeter(t *testing.T) {
	sp := progressSpace(t)
	var logs bytes.Buffer
	m := &Meter{}
	v := New(sp, []store.Trial{}, Options{Out: &bytes.Buffer{}, Log: zerolog.New(&logs)})
	v.Start(m)
	v.Event(startEv(1, 0))
	m.Report(bench.Progress{Done: 5, Total: 9})
	v.Close()
	m.Report(bench.Progress{Done: 6, Total: 9})
	if c := v.stats.running[1]; c == nil || c.requests != 5 || c.ofRequests != 9 {
		t.Errorf("running trial: %+v", v.stats.running[1])
	}
}
