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
// Because metrics are derived only from records, a saved records JSONL
// (WriteRecords / ReadRecords) recomputes a result without re-running, and
// the simulator, which fabricates records, shares every definition.
//
// # Example
//
//	p, _ := bench.Lookup("sharegpt-bs-4")
//	res, err := bench.Run(ctx, bench.Client{BaseURL: "http://127.0.0.1:8000", Model: "Qwen/Qwen3-8B"}, p, bench.RunOptions{})
//	if err != nil { ... }
//	bench.WriteText(os.Stdout, res.Metrics, bench.TextOptions{})
package bench
