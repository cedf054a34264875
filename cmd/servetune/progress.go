package main

import (
	"context"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/servetune/servetune/space"
	"github.com/servetune/servetune/studies/progress/view"
	"github.com/servetune/servetune/studies/store"
)

// progressFor starts the view (studies/progress/view) of a study that may
// have run before: its finished trials count toward the time spent, the
// baseline and the best.
func (e *env) progressFor(ctx context.Context, sp *space.Space, st *store.Store, budget time.Duration) (*view.View, error) {
	prior, err := st.Trials(ctx)
	if err != nil {
		return nil, err
	}
	p := view.New(sp, prior, e.viewOptions(budget, time.Now))
	p.Start(e.requests())
	return p, nil
}

// viewOptions draw the live block on a terminal, unless --log-format
// json asked for machine-read lines; anything else gets log lines.
func (e *env) viewOptions(budget time.Duration, now func() time.Time) view.Options {
	o := view.Options{Out: e.stdout, Log: e.log, Budget: budget, Now: now}
	if f, ok := e.stdout.(*os.File); ok && !e.jsonLog && term.IsTerminal(int(f.Fd())) {
		o.Live = true
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 20 {
			o.Width = w
		}
	}
	return o
}

// requests is the env's one meter, made on first use: the runner,
// built before the view, reports the benchmark's requests to it.
func (e *env) requests() *view.Meter {
	if e.meter == nil {
		e.meter = &view.Meter{}
	}
	return e.meter
}
