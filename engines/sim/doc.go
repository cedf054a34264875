// Package sim is servetune's built-in simulator of continuous-batching LLM
// serving engines (vLLM, SGLang, TensorRT-LLM, Ollama).
//
// It owns the model and GPU cards (a model card may carry efficiency
// factors over the engines' calibration: factors.go), the imitated
// engines' memory plans and startup failures, and a discrete-event
// scheduler whose steps are timed by a roofline with per-engine
// efficiency factors. Evaluate turns a config and a bench.Profile into
// bench.Records on a simulated clock, so the caller computes metrics with
// bench.Summarize exactly as for a real run. Live runs the same scheduler
// online, requests joining as they arrive and steps completing on the
// wall clock at simulated time ÷ speed; package simserve serves it over
// HTTP as a fake engine; Launch carries the command-line arguments
// outside the knob table that change the simulation (the context
// length). CardFromHFConfig derives a model card from a Hugging Face
// config.json; package calib fits the cards' factors to measurements.
// docs/sim.md describes the model, its calibration on the seeds and its
// fidelity.
package sim
