package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// DefaultStallTimeout is how long a request may receive nothing at all —
// no header byte, no chunk — before it fails. Generous, because a queued
// request can wait long for its prefill, yet finite, so an engine that
// accepts requests and never answers cannot hang a benchmark.
const DefaultStallTimeout = 2 * time.Minute

var errStalled = errors.New("request stalled")

// watchdog fails a request that receives no byte for d: from the send,
// before the headers, between chunks. A nil watchdog (stall detection off)
// does nothing.
type watchdog struct {
	t *time.Timer
	d time.Duration
}

func newWatchdog(d time.Duration, cancel context.CancelCauseFunc) *watchdog {
	if d <= 0 {
		return nil
	}
	return &watchdog{d: d, t: time.AfterFunc(d, func() {
		cancel(fmt.Errorf("%w: no byte received for %v", errStalled, d))
	})}
}

// kick restarts the silence: a byte arrived (or the request was sent).
func (w *watchdog) kick() {
	if w != nil {
		w.t.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	if w != nil {
		w.t.Stop()
	}
}

// watched is a response body whose reads kick the watchdog.
type watched struct {
	r   io.Reader
	dog *watchdog
}

func (w watched) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.dog.kick()
	}
	return n, err
}

// After [DONE] a server still sends the end of the response (the chunked
// encoding's terminator). Reading it lets the transport put the connection
// back in its pool; closing the body first closes the connection, and 512
// requests at 64 streams then open hundreds of connections instead of 64.
// The bounds keep a server that streams on after [DONE] from holding the
// request.
const (
	drainTimeout = time.Second
	drainLimit   = 64 << 10
)

var errDrainTimeout = errors.New("response did not end after [DONE]")

// drain reads what is left of a body within the bounds above; whatever it
// finds does not change the request's record.
func drain(cancel context.CancelCauseFunc, body io.Reader) {
	t := time.AfterFunc(drainTimeout, func() { cancel(errDrainTimeout) })
	defer t.Stop()
	_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
}
