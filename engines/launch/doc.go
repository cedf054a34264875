// Package launch starts the engines of trials and makes sure they end:
// each from the argv engines renders, in its own process group with a
// size-capped log and a pidfile, under a guardian (RunGuard) that takes it
// and its workers down with servetune even after kill -9; it waits for
// readiness, tears down until the engine's own GPUs are free, runs the
// ranks of a multi-node trial or the processes of a disaggregated
// deployment as one Server, reaps what a killed servetune left behind
// (ReapStale) and reads the environment a trial ran in (EnvironmentNow).
package launch
