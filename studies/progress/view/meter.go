package view

import (
	"sync"

	"github.com/servetune/servetune/bench"
)

// Meter carries the benchmark's per-request progress from the
// process runner, built before the study's view exists, to that view, so
// the live block can say "benchmarking 37/110 requests" instead of
// sitting at one phase for minutes.
type Meter struct {
	mu sync.Mutex
	to func(bench.Progress)
}

// Report is bench.RunOptions.Progress.
func (m *Meter) Report(p bench.Progress) {
	m.mu.Lock()
	to := m.to
	m.mu.Unlock()
	if to != nil {
		to(p)
	}
}

// Listen sends the progress to f (nil: nowhere); a nil Meter has no
// progress to send.
func (m *Meter) Listen(f func(bench.Progress)) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.to = f
	m.mu.Unlock()
}
