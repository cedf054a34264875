// Package simserve runs the simulator as an OpenAI-compatible streaming
// server that passes for vLLM, SGLang or TensorRT-LLM: it takes the
// imitated engine's own flags (read by engines.ParseArgs, the inverse of
// the adapters' Render), fails at startup with that engine's log lines,
// answers its health endpoint only once ready, and streams tokens on the
// simulated schedule (sim.Live) in real time or --speed times faster. The
// engine adapters' launcher can start it in place of the real binary, so
// launch → ready → bench → teardown runs without GPUs.
//
// It owns the HTTP front end and the engines' startup and failure logs;
// the timing model is package sim's.
package simserve
