// Command servetune tunes LLM serving engines (vLLM, SGLang, TensorRT-LLM,
// Ollama) and its built-in simulator: `run` a study from a search-space
// file (a live block on a terminal, log lines otherwise), `studies`/`show`/
// `best` its results (`best --export docker|k8s` deploys one), `report` a
// study as HTML or Markdown with plots, `command` a config's serving
// command, `bench` any OpenAI-compatible server, `sim serve` the simulator
// as a server, `lab` the samplers against each other, `calibrate` the
// simulator's cards to a finished study, `testmodel` a tiny GGUF model
// for CPU tests.
//
// The package is thin on purpose: each command parses its flags (written
// before or after its arguments: args.go moves them), calls one package
// and prints; exit codes are decided in main only (0 ok, 1 error,
// 2 bad input with nothing written, 130 interrupted).
package main
