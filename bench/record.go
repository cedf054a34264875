package bench

import "time"

// Record is what one request did, measured on the client. Metrics are
// computed from records only, so the simulator (which fabricates records on
// a simulated clock) and the load generator share every definition, and a
// saved JSONL of records is enough to recompute a result.
type Record struct {
	Index        int  `json:"i"`
	Warmup       bool `json:"warmup,omitempty"`
	Success      bool `json:"ok"`
	InputTokens  int  `json:"in"`
	OutputTokens int  `json:"out"`
	// Start is the offset of the request's send time from the benchmark start.
	Start time.Duration `json:"start_ns"`
	// TTFT is send → first chunk with content.
	TTFT time.Duration `json:"ttft_ns"`
	// Latency is send → end of stream.
	Latency time.Duration `json:"latency_ns"`
	// ITL holds the gaps between consecutive content chunks after the first.
	ITL []time.Duration `json:"itl_ns,omitempty"`
	// Text is the reply (completions text or chat content), kept only by
	// quality profiles.
	Text  string `json:"text,omitempty"`
	Error string `json:"error,omitempty"`
	// Class says what kind of failure Error is, so a report can tell
	// timeouts from HTTP 503s from broken streams.
	Class ErrorClass `json:"class,omitempty"`
}

// ErrorClass is the kind of a failed request.
type ErrorClass string

// Failure classes.
const (
	// ClassHTTP: the server answered with a non-200 status.
	ClassHTTP ErrorClass = "http"
	// ClassConnection: the connection failed before the response headers
	// (refused, reset, closed).
	ClassConnection ErrorClass = "connection"
	// ClassTimeout: the request timeout expired, or the request received
	// no byte for the stall timeout.
	ClassTimeout ErrorClass = "timeout"
	// ClassStream: the stream broke after the headers: reset, cut mid-line,
	// or ended without [DONE].
	ClassStream ErrorClass = "stream"
	// ClassProtocol: the response was not a usable event stream (wrong
	// content type, malformed JSON, a line past the 16 MiB cap, no content
	// chunk before [DONE]).
	ClassProtocol ErrorClass = "protocol"
	// ClassServer: the server streamed an error object.
	ClassServer ErrorClass = "server_error"
	// ClassAborted: the run itself stopped while the request was in flight
	// (deadline, stop signal, cancellation). Aborted requests say nothing
	// about the server and are left out of the metrics.
	ClassAborted ErrorClass = "aborted"
)
