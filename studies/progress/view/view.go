package view

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/rs/zerolog"

	"github.com/servetune/servetune/bench"
	"github.com/servetune/servetune/search"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
	studyprogress "github.com/servetune/servetune/studies/progress"
	"github.com/servetune/servetune/studies/store"
)

// View shows the study loop: on a terminal, one compact live block
// (redrawn in place) above which a short line per finished trial scrolls;
// otherwise structured log lines with rounded numbers. Events arrive from
// the loop and from the runner's goroutines, hence the lock.
type View struct {
	mu     sync.Mutex
	logger zerolog.Logger
	sp     *space.Space
	out    io.Writer
	live   bool
	width  int
	now    func() time.Time
	stats  runStats
	drawn  int
	// lastDraw and lastLog pace redraws and periodic log lines.
	lastDraw, lastLog time.Time
	stop              chan struct{}
	stopped           sync.WaitGroup
	meter             *Meter
}

// Options say where the view writes and how.
type Options struct {
	// Out takes the live block (Live) or nothing; Log takes the log lines.
	Out io.Writer
	Log zerolog.Logger
	// Live draws the block in place: Out is a terminal Width columns wide
	// (100 when 0).
	Live  bool
	Width int
	// Budget is the study's device-time budget (0: none).
	Budget time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Paces: the live block redraws every second (its clocks move) and at
// most ten times a second for the prior's predictions; piped output gets
// a progress line every logEvery while a trial or the prior works.
const (
	redrawEvery = time.Second
	drawAtMost  = 100 * time.Millisecond
	logEvery    = 30 * time.Second
)

// Start ticks the view until Close, and takes the runner's request
// progress from m (nil: none).
func (p *View) Start(m *Meter) {
	p.stop = make(chan struct{})
	p.meter = m
	p.meter.Listen(p.requestsDone)
	p.stopped.Add(1)
	go func() {
		defer p.stopped.Done()
		tick := time.NewTicker(redrawEvery)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
				p.tick()
			}
		}
	}()
}

// tick moves the live block's clocks, or logs progress when piped.
func (p *View) tick() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.live {
		if p.drawn > 0 || p.stats.screen.active() {
			p.redraw("")
		}
		return
	}
	if now.Sub(p.lastLog) >= logEvery {
		p.logProgress(now)
	}
}

// Watch wraps the study's prior so the view counts its predictions
// against the start-up's estimated work.
func (p *View) Watch(prior search.Prior) search.Prior {
	w, screens := watchPrior(prior, p.priorCall)
	p.mu.Lock()
	p.stats.screen.total = priorStartWork(p.sp, screens)
	p.mu.Unlock()
	return w
}

// priorCall counts one of the prior's predictions (from its goroutines).
func (p *View) priorCall(full bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stats.screen.over {
		return
	}
	now := p.now()
	first := p.stats.screen.calls == 0
	p.stats.screen.call(now, full)
	switch {
	case first && !p.live:
		p.lastLog = now
		p.logger.Info().Msg("the simulator prior is ranking configs before the first trial")
	case p.live && now.Sub(p.lastDraw) >= drawAtMost:
		p.redraw("")
	}
}

// requestsDone takes the benchmark's request count (runner goroutines).
func (p *View) requestsDone(pr bench.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stats.requests(pr)
}

// New starts the view of a study that may have run before: its finished
// trials (prior) count toward the time spent, the baseline and the best.
func New(sp *space.Space, prior []store.Trial, o Options) *View {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Width <= 0 {
		o.Width = 100
	}
	return &View{logger: o.Log, sp: sp, out: o.Out, live: o.Live, now: o.Now, width: o.Width,
		stats: newRunStats(sp, prior, o.Budget, o.Now())}
}

// Event takes one of the study loop's events (studies.RunOptions.OnEvent).
func (p *View) Event(ev studies.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	wasScreening := p.stats.screen.active()
	p.stats.observe(ev, p.now())
	if !p.live {
		if wasScreening && !p.stats.screen.active() {
			p.logger.Info().Int("predictions", p.stats.screen.calls).Str("took", p.now().Sub(p.stats.screen.started).Round(time.Second).String()).Msg("the simulator prior is ready")
		}
		p.log(ev)
		return
	}
	var finished string
	if ev.Kind == studies.TrialFinished {
		finished = finishedLine(p.sp, ev.Trial, p.stats.base, p.stats.baseTrial)
	}
	p.redraw(finished)
}

// redraw erases the live block, prints a finished trial's line (which
// stays in the scrollback) and draws the block again below it.
func (p *View) redraw(finished string) {
	var b strings.Builder
	if p.drawn > 0 {
		b.WriteString(ansi.CursorPreviousLine(p.drawn) + ansi.EraseScreenBelow)
	}
	if finished != "" {
		b.WriteString(ansi.Truncate(finished, p.width-1, "…") + "\n")
	}
	lines := p.stats.block(p.now())
	for _, l := range lines {
		b.WriteString(ansi.Truncate(l, p.width-1, "…") + "\n")
	}
	p.drawn = len(lines)
	p.lastDraw = p.now()
	fmt.Fprint(p.out, b.String())
}

// Close stops the ticks and erases the live block: the summary follows
// the finished lines.
func (p *View) Close() {
	if p.stop != nil {
		close(p.stop)
		p.stopped.Wait()
		p.stop = nil
		p.meter.Listen(nil)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live && p.drawn > 0 {
		fmt.Fprint(p.out, ansi.CursorPreviousLine(p.drawn)+ansi.EraseScreenBelow)
		p.drawn = 0
	}
}

func (p *View) log(ev studies.Event) {
	t := ev.Trial
	if ev.Kind != studies.TrialPhase {
		p.lastLog = p.now() // a line was just written: the next periodic one can wait
	}
	switch ev.Kind {
	case studies.TrialStarted:
		p.logger.Info().Int("trial", t.Number).Int("done", ev.Done).Int("of", ev.Total).
			Str("origin", t.Origin).Str("config", t.Config.Summary()).Msg("trial started")
	case studies.TrialPhase:
		p.logger.Debug().Int("trial", t.Number).Str("phase", string(ev.Phase)).Float64("bench_pct", roundSensibly(ev.Progress*100)).Msg("trial phase")
	case studies.TrialFinished:
		lg := p.logger.Info().Int("trial", t.Number).Int("done", ev.Done).Int("of", ev.Total).
			Str("state", string(t.State)).Float64(unitKey(p.stats.unit), roundSensibly(t.GPUSeconds/3600))
		for i, o := range p.sp.Objectives {
			v := studies.Values(p.sp, t)[i]
			if math.IsNaN(v) {
				continue
			}
			lg = lg.Float64(o.Metric, roundSensibly(v))
			if pct, ok := vsBaseline(v, p.stats.base, i); ok && t.Origin != "baseline" {
				lg = lg.Float64(o.Metric+"_vs_baseline_pct", math.Round(pct*10)/10)
			}
		}
		if eta, ok := p.stats.eta(p.now()); ok {
			lg = lg.Str("study_eta", studyprogress.Format(eta))
		}
		switch {
		case t.Failure != nil:
			lg = lg.Str("failure", string(t.Failure.Class)).Str("reason", t.Failure.Message)
		case t.Reason != "":
			lg = lg.Str("reason", t.Reason)
		}
		lg.Msg("trial finished")
	}
}

// logProgress is the periodic line piped output gets while the prior or
// a trial works: what, how far, the study's ETA.
func (p *View) logProgress(now time.Time) {
	s := &p.stats
	if s.screen.active() {
		lg := p.logger.Info().Int("predictions", s.screen.calls).Float64("pct", math.Round(s.screen.fraction()*100))
		if eta, ok := s.screen.eta(now); ok {
			lg = lg.Str("eta_about", eta.Round(time.Second).String())
		}
		lg.Msg("the simulator prior is ranking configs")
		p.lastLog = now
		return
	}
	for _, n := range slices.Sorted(maps.Keys(s.running)) {
		c := s.running[n]
		lg := p.logger.Info().Int("trial", c.trial).Str("phase", c.describe()).Str("elapsed", now.Sub(c.since).Round(time.Second).String())
		if eta, ok := s.eta(now); ok {
			lg = lg.Str("study_eta", studyprogress.Format(eta))
		}
		lg.Msg("trial running")
		p.lastLog = now
	}
}

// unitKey names device time with its unit: gpu_h or cpu_h.
func unitKey(unit string) string {
	if strings.HasSuffix(unit, "CPU-hours") {
		return "cpu_h"
	}
	return "gpu_h"
}

// roundSensibly keeps what a reader can use: whole numbers from 100 up,
// one decimal from 10, two below (3 significant digits under 1).
func roundSensibly(x float64) float64 {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0) || a >= 100:
		return math.Round(x)
	case a >= 10:
		return math.Round(x*10) / 10
	case a >= 1 || a == 0:
		return math.Round(x*100) / 100
	}
	scale := math.Pow(10, 2-math.Floor(math.Log10(a)))
	return math.Round(x*scale) / scale
}

func fmtRounded(x float64) string { return fmt.Sprint(roundSensibly(x)) }

func vsBaseline(v float64, base []float64, i int) (float64, bool) {
	if i >= len(base) || math.IsNaN(base[i]) || base[i] == 0 || math.IsNaN(v) {
		return 0, false
	}
	return (v - base[i]) / math.Abs(base[i]) * 100, true
}
