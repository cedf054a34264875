// Package measure reads benchmark results users already have — the JSON
// of `servetune bench --json` and of `vllm bench serve --save-result` —
// each in a small wrapper naming the serving config that produced it
// (engine, model, GPU, knobs or the serve command), into measurements
// `servetune calibrate --measurements` fits the simulator's cards to. It
// only parses and checks; it runs nothing. The format is in docs/sim.md.
package measure
