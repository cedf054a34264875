// Package engines is the adapters of the serving engines servetune tunes:
// one registry (registry.go; Lookup knows a target's declared engines too)
// in which each engine's own file answers its flags, port, image, health
// path, readiness probes, device, version command and GPU count; the exact
// command a config renders to (Render, RenderPD for a disaggregated
// deployment, RenderRanks for one over several nodes) and its inverse
// (ParseArgs); and why an engine failed, from its own messages (Classify).
// Nothing here starts a process or waits for one: engines/launch does,
// from these commands, so what a report recommends is what was measured.
package engines
