package optunadb

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/servetune/servetune/studies/store"
)

// Mirror keeps an Optuna storage current while a study runs: the study
// loop tells it of each finished trial (studies.TrialObserver). A write
// that fails (the storage is down) is retried with the next trial, so the
// storage catches up; the study itself never waits on it for long.
type Mirror struct {
	w       *Writer
	mu      sync.Mutex
	trials  []store.Trial
	pending map[int]bool
	dists   string
	// reload re-reads the study once, at the first finished trial: the
	// loop records a dead predecessor's running trials as interrupted
	// after the mirror wrote them as running.
	reload func(context.Context) ([]store.Trial, error)
}

// writeTimeout bounds one write; stopTimeout bounds the last one when
// the study is being stopped, so a signal still acts within a second.
const (
	writeTimeout = 10 * time.Second
	stopTimeout  = 800 * time.Millisecond
)

// NewMirror writes the study's trials so far (a resumed run's history)
// and returns the mirror that writes the rest; reload (may be nil) reads
// the study's trials from its store.
func NewMirror(ctx context.Context, w *Writer, trials []store.Trial, reload func(context.Context) ([]store.Trial, error)) (*Mirror, error) {
	m := &Mirror{w: w, trials: append([]store.Trial(nil), trials...), pending: map[int]bool{}, reload: reload}
	m.dists = signature(distributions(w.sp, m.trials))
	if err := w.Write(ctx, m.trials, nil); err != nil {
		return nil, err
	}
	return m, nil
}

// TrialFinished writes t and any trial whose write failed before. When t
// widened a knob's distribution (Optuna keeps one per knob), every trial
// is rewritten with the new one.
func (m *Mirror) TrialFinished(ctx context.Context, t store.Trial) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	budget := writeTimeout
	if ctx.Err() != nil {
		budget = stopTimeout
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), budget)
	defer cancel()
	resync := false
	if m.reload != nil { // on failure, retried with the next trial
		if all, err := m.reload(wctx); err == nil {
			m.trials, m.reload, resync = all, nil, true
		}
	}
	m.replace(t)
	m.pending[t.Number] = true
	which := m.which()
	if sig := signature(distributions(m.w.sp, m.trials)); sig != m.dists || resync {
		m.dists, which = sig, m.trials
	}
	if err := m.w.Write(wctx, m.trials, which); err != nil {
		return err
	}
	clear(m.pending)
	return nil
}

func (m *Mirror) replace(t store.Trial) {
	for i := range m.trials {
		if m.trials[i].Number == t.Number {
			m.trials[i] = t
			return
		}
	}
	m.trials = append(m.trials, t)
}

func (m *Mirror) which() []store.Trial {
	var out []store.Trial
	for _, t := range m.trials {
		if m.pending[t.Number] {
			out = append(out, t)
		}
	}
	return out
}

func signature(ds map[string]*dist) string {
	keys := make([]string, 0, len(ds))
	for k := range ds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + ds[k].JSON() + ";")
	}
	return b.String()
}
