// Package engines is the pure adapters of the serving engines servetune
// tunes: one registry (registry.go; Lookup knows a target's declared
// engines too) in which each engine's own file answers its flags, port,
// image, health path, device, version command and GPU count; the exact
// command a config renders to (Render, RenderPD for a disaggregated
// deployment, RenderRanks for one over several nodes) and its inverse
// (ParseArgs); and why an engine failed, from its own messages (Classify).
// Nothing here starts a process: engines/launch does, from these commands,
// so the command a report recommends is byte for byte the one measured.
package engines
