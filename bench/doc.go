// Package bench owns servetune's load generator: benchmark profiles (the
// seeds' built-ins and custom ones from the space TOML), the request plan
// (prompt lengths and arrival times, shared with the simulator), the
// streaming OpenAI-compatible client, the per-request Record stream, the
// metrics computed from records (definitions as `vllm bench serve`, see
// docs/metrics.md) and their text and JSON renderings.
//
// # Overview
//
// A Profile says what to send; Profile.Plan materialises it into a Plan
// (one PlannedRequest per prompt, with its arrival offset); Run sends a plan
// to a server and returns a Result whose Metrics are Summarize(Records).
// A multi-turn round (PlannedRequest.After) is held until the round it
// continues has finished (session.go), as the simulator holds it.
// Because metrics are derived only from records, a saved records JSONL
// (WriteRecords / ReadRecords) recomputes a result without re-running, and
// the simulator, which fabricates records, shares every definition.
//
// The client reads the event stream in two layers: SSE framing (sse.go:
// lines, capped at 16 MiB) and the scan of each data line's JSON chunk
// (chunk.go); both are fuzzed. A request that receives no byte for
// RunOptions.StallTimeout (DefaultStallTimeout, counted from the send)
// fails as a timeout; after [DONE] the body is read to its end so the
// connection is reused. Every error message stored has the API key
// redacted (Redact).
//
// Bench also owns definitions others share: the pruning checkpoints of a
// run (Checkpoints, CheckpointSteps), used by the live run and the
// simulator alike; the validity of a profile (Profile.Problems, each named
// by its TOML key); the prompt vocabulary (PromptWords) the tiny test
// model's tokenizer is built from; what an SLO is and how requests are
// counted against it (goodput_rps, slo_attainment); and the scoring of a
// quality profile's replies (greedy decoding, Replies, Quality:
// answer_accuracy against JSONL references, baseline_agreement against
// the baseline's replies). Undefined metrics are absent from
// Metrics.Values, never NaN.
//
// # Example
//
//	p, _ := bench.Lookup("sharegpt-bs-4")
//	res, err := bench.Run(ctx, bench.Client{BaseURL: "http://127.0.0.1:8000", Model: "Qwen/Qwen3-8B"}, p, bench.RunOptions{})
//	if err != nil { ... }
//	bench.WriteText(os.Stdout, res.Metrics, bench.TextOptions{})
package bench
