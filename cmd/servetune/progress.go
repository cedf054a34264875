package main

import (
	"fmt"
	"math"

	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/servetune/servetune/objective"
	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies"
)

// progress shows the study loop: one live, rewritten line per trial on a
// terminal; structured log lines otherwise.
type progress struct {
	e     *env
	sp    *space.Space
	live  bool
	start time.Time
	phase objective.Phase
	open  bool
}

func newProgress(e *env, sp *space.Space) *progress {
	f, isFile := e.stdout.(*os.File)
	return &progress{e: e, sp: sp, live: isFile && isatty.IsTerminal(f.Fd())}
}

func (p *progress) event(ev studies.Event) {
	switch ev.Kind {
	case studies.TrialStarted:
		p.start, p.phase = time.Now(), objective.Launching
		if !p.live {
			p.e.log.Info().Int("trial", ev.Trial.Number).Int("done", ev.Done).Int("of", ev.Total).
				Str("origin", ev.Trial.Origin).Str("config", ev.Trial.Config.Summary()).Msg("trial started")
		}
	case studies.TrialPhase:
		p.phase = ev.Phase
		if !p.live {
			p.e.log.Debug().Int("trial", ev.Trial.Number).Str("phase", string(ev.Phase)).Msg("trial phase")
		}
	case studies.TrialFinished:
		if p.live {
			p.line(ev, p.outcome(ev.Trial))
			fmt.Fprintln(p.e.stdout)
			p.open = false
			return
		}
		lg := p.e.log.Info().Int("trial", ev.Trial.Number).Int("done", ev.Done).Int("of", ev.Total).
			Str("state", string(ev.Trial.State)).Float64("gpu_s", ev.Trial.GPUSeconds)
		for i, o := range p.sp.Objectives {
			if v := studies.Values(p.sp, ev.Trial)[i]; !math.IsNaN(v) {
				lg = lg.Float64(o.Metric, v)
			}
		}
		switch t := ev.Trial; {
		case t.Failure != nil:
			lg = lg.Str("failure", string(t.Failure.Class)).Str("reason", t.Failure.Message)
		case t.Reason != "":
			lg = lg.Str("reason", t.Reason)
		}
		lg.Msg("trial finished")
		return
	}
	if p.live {
		p.line(ev, string(p.phase))
	}
}

func (p *progress) line(ev studies.Event, status string) {
	summary := ev.Trial.Config.Summary()
	if len(summary) > 60 {
		summary = summary[:57] + "..."
	}
	best := ""
	if ev.Best != nil {
		o := p.sp.Objectives[0]
		best = fmt.Sprintf(" | best %s %.2f (trial %d)", o.Metric, studies.Values(p.sp, *ev.Best)[0], ev.Best.Number)
	}
	fmt.Fprintf(p.e.stdout, "\r\033[K[%d/%d] trial %d %s %s | %s%s", ev.Done, ev.Total, ev.Trial.Number, status,
		time.Since(p.start).Round(time.Second), summary, best)
	p.open = true
}

func (p *progress) outcome(t studies.Trial) string {
	switch {
	case t.BrokeRule():
		return "skipped (breaks a rule)"
	case t.State == studies.Pruned:
		return "pruned: " + t.Reason
	case t.Failure != nil:
		return fmt.Sprintf("%s (%s)", t.State, t.Failure.Class)
	case t.ReusedFrom != 0:
		return fmt.Sprintf("reused trial %d", t.ReusedFrom)
	}
	parts := []string{string(t.State)}
	for i, o := range p.sp.Objectives {
		parts = append(parts, fmt.Sprintf("%s=%.2f", o.Metric, studies.Values(p.sp, t)[i]))
	}
	return strings.Join(parts, " ")
}

func (p *progress) close() {
	if p.open {
		fmt.Fprintln(p.e.stdout)
	}
}
