// Package engines owns everything servetune knows about real serving
// engines: the one registry of them (registry.go; Lookup knows a target's
// declared engines too), where each engine's own file answers its port,
// image, health path, device, version command and GPU count; the knob →
// flag tables of vLLM, SGLang and TensorRT-LLM
// (Render and its inverse Parse, per engine version), the adapter of an
// engine declared in TOML (space.EngineDecl: argv, readiness by path,
// JSON field or log line, its own failure messages), Ollama's knob →
// environment and Modelfile mapping with its setup against the live server
// (`ollama create`, model load), launching an engine
// for a trial in its own process group with a size-capped log, waiting for
// readiness, tearing it down until its own GPUs are free (gpuwatch.go:
// engines packed side by side do not wait for each other), the guardian process
// (RunGuard) that makes an engine and all its workers die with servetune
// even after kill -9, the set of live engine groups servetune's second
// signal kills at once (Live), reaping engines left behind by a killed servetune,
// classifying failures from exit status and log tail, the command a trial
// really ran (credentials redacted) and the environment fingerprint it ran
// in (engine version read from the engine, devices, host, checkpoint).
// A trial larger than one node (Nodes, target.nodes) runs as one rank per
// node: RenderRanks renders each rank's command (SGLang's and vLLM's
// multi-node flags; the others refuse), and Start launches every rank
// through target.node_launch, each in its own group with its own pidfile
// and log, readiness and failure taken over all of them, and Stop tearing
// them all down together.
//
// Rendering is pure and shared by trials, reports and `servetune command`,
// so the command a report recommends is byte for byte the one that was
// measured. docs/engines.md lists every knob's spelling per engine and
// version. The simulator lives in engines/sim and is not part of this
// package.
package engines
