package main

import (
	"sync"

	"github.com/servetune/servetune/bench"
)

// requestMeter carries the benchmark's per-request progress from the
// process runner, built before the study's view exists, to that view, so
// the live block can say "benchmarking 37/110 requests" instead of
// sitting at one phase for minutes.
type requestMeter struct {
	mu sync.Mutex
	to func(bench.Progress)
}

// report is bench.RunOptions.Progress.
func (m *requestMeter) report(p bench.Progress) {
	m.mu.Lock()
	to := m.to
	m.mu.Unlock()
	if to != nil {
		to(p)
	}
}

// listen sends the progress to f (nil: nowhere).
func (m *requestMeter) listen(f func(bench.Progress)) {
	m.mu.Lock()
	m.to = f
	m.mu.Unlock()
}

// requests is the env's one meter, made on first use.
func (e *env) requests() *requestMeter {
	if e.meter == nil {
		e.meter = &requestMeter{}
	}
	return e.meter
}
