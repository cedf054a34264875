// Command servetune tunes LLM serving engines (vLLM, SGLang, TensorRT-LLM,
// Ollama) and its built-in simulator: `run` a study from a search-space
// file, `studies`/`show`/`best` its results, `command` a config's serving
// command, `bench` any OpenAI-compatible server, `sim serve` the simulator
// as a server, `lab` the samplers against each other, `testmodel` a tiny
// GGUF model for CPU tests.
//
// The package is thin on purpose: each command parses its flags, calls one
// package and prints; exit codes are decided in main only (0 ok, 1 error,
// 2 bad input with nothing written, 130 interrupted).
package main
