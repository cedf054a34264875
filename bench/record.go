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
	ITL   []time.Duration `json:"itl_ns,omitempty"`
	Error string          `json:"error,omitempty"`
}
