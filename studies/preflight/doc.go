// Package preflight checks, before a night's first engine launch, what
// the night depends on — the engine programs and the versions they
// report, the GPUs the space needs being visible and free, the
// checkpoint being local or downloadable, the storage being reachable
// and writable, the ports bindable — and estimates on the simulator what
// the study will run and cost. Each check is a small function of the
// space and of a World (the machine, faked in tests); nothing is
// launched and nothing is written to the study's storage.
package preflight
